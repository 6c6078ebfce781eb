//===- Sha256Test.cpp - SHA-256 against FIPS 180-4's vectors --------------===//
#include "tcc/Support/Sha256.h"
#include "tcc/Support/WeightsFile.h"

#include <catch2/catch.hpp>

#include <string>

using namespace tcc;

TEST_CASE("Sha256 gives FIPS 180-4's digests, streamed in any pieces", "[support]") {
  CHECK(Sha256::hex("", 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256::hex("abc", 3) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(Sha256::hex(two.data(), two.size()) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  for (size_t piece : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(4096)}) {
    Sha256 s;
    for (size_t at = 0; at < million.size(); at += piece)
      s.update(million.data() + at, std::min(piece, million.size() - at));
    CHECK(Sha256::toHex(s.finish()) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

TEST_CASE("A weights file header round trips and refuses what is not one", "[support]") {
  Sha256 s;
  s.update("abc", 3);
  std::string header = weightsfile::encode(3, s.finish());
  REQUIRE(header.size() == weightsfile::kHeaderBytes);
  weightsfile::Header h;
  CHECK(weightsfile::decode(reinterpret_cast<const unsigned char *>(header.data()), h) == "");
  CHECK(h.imageBytes == 3);
  CHECK(h.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string raw(64, '\0');
  CHECK(weightsfile::decode(reinterpret_cast<const unsigned char *>(raw.data()), h).find(
            "not a tcc weights file") == 0);
  header[8] = 2; // a later format
  CHECK(weightsfile::decode(reinterpret_cast<const unsigned char *>(header.data()), h) ==
        "a tcc weights file of format 2, this runtime reads 1");
}
