//===- main.cpp - Catch2 entry point for tcc-unit-tests -------------------===//
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
