//===- TorchScriptTest.cpp - the TorchScript frontend ---------------------===//
//
// The graph-dump parser (good and malformed text, with line:column), the
// unpickler (hand-assembled pickles and the samples' archives), shape
// inference and the conversion to an ExportedProgram (samples of
// samples/torchscript, made by scripts/make_fixtures.py).
//
//===----------------------------------------------------------------------===//
#include "tcc/Frontend/FrontendError.h"
#include "tcc/Frontend/TorchScript/TorchScriptArchive.h"
#include "tcc/Frontend/TorchScript/TorchScriptGraph.h"
#include "tcc/Frontend/TorchScript/TorchScriptReader.h"
#include "tcc/Frontend/TorchScript/Unpickler.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

namespace {
std::string sample(const std::string &rel) {
  return std::string(TCC_SOURCE_DIR) + "/samples/torchscript/" + rel;
}

std::string writeTemp(const std::string &name, const std::string &text) {
  auto dir = std::filesystem::temp_directory_path() / "tcc-torchscript-test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const FrontendError &e) {
    return e.what();
  }
  return "";
}

std::vector<int64_t> staticSizes(const TensorMeta &m) {
  std::vector<int64_t> out;
  for (const SymDim &d : m.sizes)
    out.push_back(d.value.value_or(-1));
  return out;
}

const char *kTiny = R"(graph(%self.1 : __torch__.M,
      %x : Float(10, 100, strides=[100, 1], requires_grad=0, device=cpu)):
  %lin : __torch__.torch.nn.modules.linear.Linear = prim::GetAttr[name="lin"](%self.1)
  %w : Tensor = prim::GetAttr[name="weight"](%lin)
  %c : float = prim::Constant[value=1.0000000000000001e-05](), scope: __module.lin # /a/b.py:134:0
  %l : int[] = prim::Constant[value=[2, 2]]()
  %e : int[] = prim::Constant[value=annotate(List[int], [])]()
  %s : str = prim::Constant[value="a \"b\""]()
  %t : Float(3, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value=0.01 * -3.5  2.0 1 [ CPUFloatType{3} ]]()
  %z : Long(requires_grad=0, device=cpu) = prim::Constant[value={2}]()
  %a : Float(10, 10, strides=[10, 1], requires_grad=0, device=cpu), %b : Tensor = prim::ListUnpack(%x) # f.py:1:2
   = prim::If(%c)
    block0():
      -> ()
    block1():
      -> ()
  return (%a)
)";
} // namespace

TEST_CASE("TorchScript graph parser reads a dump", "[torchscript]") {
  TsGraph g = parseTorchScriptGraph(kTiny, "tiny.txt");
  REQUIRE(g.inputs.size() == 2);
  CHECK(g.inputs[0].type.kind == TsType::Class);
  CHECK(g.inputs[1].name == "x");
  CHECK(g.inputs[1].type.kind == TsType::Tensor);
  CHECK(g.inputs[1].type.sizes.size() == 2);
  CHECK(*g.inputs[1].type.sizes[1] == 100);
  REQUIRE(g.nodes.size() == 10);
  CHECK(g.nodes[0].kind == "prim::GetAttr");
  CHECK(g.nodes[0].attr("name")->s == "lin");
  const TsNode &c = g.nodes[2];
  CHECK(c.attr("value")->kind == TsAttr::Float);
  CHECK(c.attr("value")->f == Approx(1e-5));
  CHECK(c.scope == "__module.lin");
  CHECK(c.source.file == "/a/b.py");
  CHECK(c.source.line == 134);
  CHECK(c.textLine == 5);
  CHECK(g.nodes[3].attr("value")->ints == std::vector<int64_t>{2, 2});
  CHECK(g.nodes[4].attr("value")->kind == TsAttr::Ints);
  CHECK(g.nodes[4].attr("value")->ints.empty());
  CHECK(g.nodes[5].attr("value")->s == "a \"b\"");
  const TsAttr *t = g.nodes[6].attr("value");
  CHECK(t->kind == TsAttr::TensorInline);
  CHECK(t->tensorSizes == std::vector<int64_t>{3});
  CHECK(t->floats[0] == Approx(-0.035));
  CHECK(t->floats[2] == Approx(0.01));
  CHECK(g.nodes[7].attr("value")->floats == std::vector<double>{2});
  CHECK(g.nodes[8].outputs.size() == 2);
  CHECK(g.nodes[8].outputs[1].type.kind == TsType::Tensor);
  CHECK(g.nodes[9].kind == "prim::If");
  CHECK(g.nodes[9].outputs.empty());
  CHECK(g.nodes[9].blocks.size() == 2);
  CHECK(g.returns == std::vector<std::string>{"a"});
}

TEST_CASE("TorchScript types", "[torchscript]") {
  CHECK(parseTsType("int[]").kind == TsType::List);
  CHECK(parseTsType("int[]").elements[0].kind == TsType::Int);
  CHECK(parseTsType("Optional[Tensor]").kind == TsType::Optional);
  CHECK(parseTsType("Tensor?").kind == TsType::Optional);
  CHECK(parseTsType("(Tensor, Tensor)").elements.size() == 2);
  TsType t = parseTsType("Long(requires_grad=0, device=cpu)");
  CHECK(t.kind == TsType::Tensor);
  CHECK(*t.dtype == DType::Int64);
  CHECK(t.hasSizes);
  CHECK(t.sizes.empty());
  TsType s = parseTsType("Float(*, 5, strides=[5, 1], requires_grad=0, device=cpu)");
  CHECK(!s.sizes[0].has_value());
  CHECK(*s.sizes[1] == 5);
}

TEST_CASE("malformed dumps point at line and column", "[torchscript]") {
  auto err = [](const std::string &text) {
    return errorOf([&] { parseTorchScriptGraph(text, "bad.txt"); });
  };
  CHECK(err("grph(%x : Tensor):\n  return (%x)\n") ==
        "bad.txt:1:1: malformed TorchScript graph: expected 'graph' but found 'g'");
  CHECK(err("graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x\n  return (%y)\n") ==
        "bad.txt:2:30: malformed TorchScript graph: expected ')' but found the end of the line");
  CHECK(err("graph(%x : Tensor):\n  %y : Tensor = relu(%x)\n  return (%y)\n") ==
        "bad.txt:2:17: malformed TorchScript graph: expected a node kind like 'aten::relu' but "
        "found '('");
  CHECK(err("graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x)\n") ==
        "bad.txt:3:1: malformed TorchScript graph: expected 'return' at the end of the graph");
  CHECK(err("graph(%x : Tensor):\n  %y : Tensor = prim::Constant[value=\"abc]()\n  return (%y)\n")
            .rfind("bad.txt:2:38: malformed TorchScript graph: unterminated string", 0) == 0);
  CHECK(err("graph(%x : Tensor):\n  %y : Float(2) = prim::Constant[value= 1 2 3 [ CPUFloatType{2} ]]()\n  return (%y)\n")
            .rfind("bad.txt:2:40: malformed TorchScript graph: tensor value has 3 numbers for 2", 0) == 0);
  // Sizes whose element count wraps to 0 in 64 bits, given no numbers: not an
  // empty tensor standing for 2^64 elements.
  CHECK(err("graph(%x : Tensor):\n  %y : Tensor = prim::Constant[value= [ CPUFloatType{4294967296,4294967296} ]]()\n  return (%y)\n")
            .find("tensor value of sizes beyond 2^64 elements or negative") != std::string::npos);
}

namespace {
/// A tiny pickle assembler for the opcodes PyTorch writes.
struct PickleWriter {
  std::vector<uint8_t> b{0x80, 2};
  PickleWriter &op(uint8_t c) { b.push_back(c); return *this; }
  PickleWriter &global(const std::string &m, const std::string &n) {
    op('c');
    for (char c : m + "\n" + n + "\n")
      b.push_back(static_cast<uint8_t>(c));
    return *this;
  }
  PickleWriter &str(const std::string &s) {
    op('X');
    uint32_t n = static_cast<uint32_t>(s.size());
    for (int i = 0; i < 4; ++i)
      b.push_back(static_cast<uint8_t>(n >> (8 * i)));
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  PickleWriter &int1(uint8_t v) { return op('K').op(v); }
};
} // namespace

TEST_CASE("unpickler rebuilds tensors under module attributes", "[torchscript]") {
  PickleWriter w;
  w.global("__torch__", "M").op(')').op(0x81).op('}').op('(');
  w.str("w").global("torch._utils", "_rebuild_tensor_v2").op('(');
  w.op('(').str("storage").global("torch", "FloatStorage").str("0").str("cpu").int1(6).op('t');
  w.op('Q').int1(1).int1(2).int1(2).op(0x86).int1(1).int1(2).op(0x86).op(0x89);
  w.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
  w.str("eps").op('G');
  double eps = 1e-5;
  uint64_t bits;
  std::memcpy(&bits, &eps, 8);
  for (int i = 7; i >= 0; --i)
    w.b.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  w.str("other").global("some.module", "Thing").op(')').op('R');
  w.op('u').op('b').op('.');
  PyRef root = unpickle(w.b, "test.pkl");
  REQUIRE(root->kind == PyObject::Object);
  CHECK(root->s == "__torch__.M");
  PyRef t = root->get("w");
  REQUIRE(t);
  REQUIRE(t->kind == PyObject::Tensor);
  CHECK(t->tensor.storageKey == "0");
  CHECK(t->tensor.storageNumel == 6);
  CHECK(t->tensor.storageOffset == 1);
  CHECK(t->tensor.sizes == std::vector<int64_t>{2, 2});
  CHECK(t->tensor.strides == std::vector<int64_t>{1, 2});
  CHECK(root->get("eps")->f == 1e-5);
  CHECK(root->get("other")->kind == PyObject::Object); // unknown global: opaque
}

TEST_CASE("malformed pickles give one-line errors", "[torchscript]") {
  auto err = [](std::vector<uint8_t> bytes) {
    return errorOf([&] { unpickle(bytes, "x.pkl"); });
  };
  CHECK(err({0x80, 2, 'X', 10, 0, 0, 0, 'a'}) == "x.pkl: malformed pickle: truncated data at offset 7");
  CHECK(err({0x80, 2, 'h', 3}) == "x.pkl: malformed pickle: memo entry 3 is not set at offset 2");
  CHECK(err({0x80, 2, 0xff}) == "x.pkl: malformed pickle: unsupported opcode 0xff at offset 2");
  CHECK(err({0x80, 2, 'e', '.'}) == "x.pkl: malformed pickle: no MARK at offset 2");
  CHECK(err({0x80, 2, 'N', 'N', 'R', '.'}).find("malformed pickle") != std::string::npos);
  // Every truncation of a real data.pkl fails cleanly.
  TorchScriptArchive a = readTorchScriptArchive(sample("mymodule/model.pt"));
  CHECK(a.tensors.size() == 2);
}

TEST_CASE("archive weights by attribute path", "[torchscript]") {
  TorchScriptArchive a = readTorchScriptArchive(sample("outer_module/model.pt"));
  REQUIRE(a.tensors.count("inner.lin.weight"));
  const TensorData &w = a.tensors.at("inner.lin.weight");
  CHECK(staticSizes(w.meta) == std::vector<int64_t>{10, 100});
  CHECK(w.bytes.size() == 10 * 100 * 4);
  CHECK(a.tensors.count("lin.bias"));
  CHECK(a.moduleClasses.at("inner").find("MyModuleForBare") != std::string::npos);
  REQUIRE(a.tracedInputs.size() == 1);
  CHECK(staticSizes(a.tracedInputs[0]) == std::vector<int64_t>{10, 100});
  TorchScriptArchive t = readTorchScriptArchive(sample("tiny_transformer/model.pt"));
  REQUIRE(t.constants.size() == 1);
  CHECK(t.constants[0].meta.dtype == DType::Int64);
}

TEST_CASE("hostile numbers: strides past int64, inf read as an int", "[torchscript]") {
  // mymodule's archive with lin.weight's stride 100 made 2^62 (found under
  // UBSan: (10 - 1) * 2^62 overflowed computing the last element's offset).
  std::string archive = std::string(TCC_SOURCE_DIR) +
                        "/test/fuzz/regressions/torchscript-archive/stride-overflow.pt";
  CHECK(errorOf([&] { readTorchScriptArchive(archive); }).find("reads past the end of its storage") !=
        std::string::npos);
  // A float constant TorchScript prints (float('inf')); its int view saturates.
  TsGraph g = parseTorchScriptGraph(
      "graph(%x : Tensor):\n  %y : float = prim::Constant[value=inf]()\n  return (%x)\n", "inf.txt");
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].attrs[0].i == INT64_MAX);
  CHECK(saturatingInt64(-1e300) == INT64_MIN);
  CHECK(saturatingInt64(-2.9) == -2);
  CHECK(saturatingInt64(std::nan("")) == 0);
}

TEST_CASE("traced dump with weights converts to an ExportedProgram", "[torchscript]") {
  TorchScriptOptions o;
  o.input = sample("outer_module/graph.txt");
  o.weights = sample("outer_module/model.pt");
  ExportedProgram p = readTorchScript(o);
  REQUIRE(p.nodes.size() == 4);
  CHECK(p.nodes[0].target == "torch.ops.aten.linear.default");
  CHECK(p.nodes[0].input("input")->tensor == "x");
  CHECK(p.nodes[1].target == "torch.ops.aten.relu.default");
  CHECK(p.weights.count("inner.lin.weight"));
  CHECK(p.weights.count("lin.bias"));
  CHECK(p.inputSpecs[0].kind == InputKind::UserInput);
  CHECK(p.inputSpecs[0].graphName == "x");
  REQUIRE(p.outputSpecs.size() == 1);
  CHECK(staticSizes(p.tensorValues.at(p.outputSpecs[0].graphName)) == std::vector<int64_t>{10, 2});
  CHECK(p.nodes[0].loc.line == 134);
}

TEST_CASE("scripted graph: shapes from --input-shape and inference", "[torchscript]") {
  TorchScriptOptions o;
  o.input = sample("small_cnn/scripted_frozen_graph.txt");
  o.inputShapes = {"x=2x3x16x16"};
  // The folded conv-bn weight is not in the traced archive.
  o.weights = sample("small_cnn/model.pt");
  CHECK(errorOf([&] { readTorchScript(o); }).find("conv1.weight_fused_bn") != std::string::npos);

  TorchScriptOptions t;
  t.input = sample("tiny_transformer/scripted_frozen_graph.txt");
  t.weights = sample("tiny_transformer/model.pt");
  t.inputShapes = {"x=2x5x16"};
  ExportedProgram p = readTorchScript(t);
  CHECK(staticSizes(p.tensorValues.at(p.outputSpecs[0].graphName)) ==
        std::vector<int64_t>{2, 5, 16});
  bool sawChunk = false;
  for (const Node &n : p.nodes)
    if (n.target == "torch.ops.aten.chunk.default") {
      sawChunk = true;
      REQUIRE(n.outputs.size() == 1);
      CHECK(n.outputs[0].tensors.size() == 3);
      CHECK(staticSizes(p.tensorValues.at(n.outputs[0].tensors[0])) ==
            std::vector<int64_t>{2, 5, 16});
    }
  CHECK(sawChunk);
}

TEST_CASE("symbolic batch from --input-shape and --symbol", "[torchscript]") {
  TorchScriptOptions o;
  o.input = sample("mymodule/frozen_graph.txt");
  o.weights = sample("mymodule/model.pt");
  o.inputShapes = {"x=Bx100"};
  CHECK(errorOf([&] { readTorchScript(o); }).find("--symbol B=MIN:MAX") != std::string::npos);
  o.symbols = {"B=1:64"};
  ExportedProgram p = readTorchScript(o);
  const TensorMeta &out = p.tensorValues.at(p.outputSpecs[0].graphName);
  CHECK(!out.sizes[0].isStatic());
  CHECK(out.sizes[0].expr == "B");
  CHECK(p.rangeConstraints.at("B").max == 64);
}

TEST_CASE("unsupported nodes name the kind, source range and advice", "[torchscript]") {
  std::string path = writeTemp("if.txt", R"(graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %s : Tensor = aten::sum(%x, %n) # m.py:3:4
  %b : bool = aten::Bool(%s) # m.py:4:7
  %y : Tensor = prim::If(%b) # m.py:4:4
    block0():
      -> (%x)
    block1():
      -> (%s)
  return (%y)
)");
  // %n is undefined: that is reported first.
  TorchScriptOptions o;
  o.input = path;
  CHECK(errorOf([&] { readTorchScript(o); }) == path + ":2: node 'aten::sum' (at m.py:3:4): uses undefined value '%n'");
  path = writeTemp("if2.txt", R"(graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %n : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %n) # m.py:3:4
  %b : bool = aten::Bool(%s) # m.py:4:7
  return (%s)
)");
  o.input = path;
  CHECK(errorOf([&] { readTorchScript(o); }) ==
        path + ":4: unsupported TorchScript node 'aten::Bool' (at m.py:4:7): its value depends on "
               "tensor data, which tcc cannot fold; export the model with torch.export instead");
}

TEST_CASE("the archive alone: forward code and traced inputs", "[torchscript]") {
  TorchScriptOptions o;
  o.input = sample("tiny_transformer/model.pt");
  ExportedProgram p = readTorchScript(o);
  CHECK(staticSizes(p.tensorValues.at(p.outputSpecs[0].graphName)) ==
        std::vector<int64_t>{2, 5, 16});
  CHECK(p.weights.count("ln2.weight"));
  o.input = sample("small_cnn/model.pt");
  ExportedProgram c = readTorchScript(o);
  CHECK(staticSizes(c.tensorValues.at(c.outputSpecs[0].graphName)) == std::vector<int64_t>{2, 10});
}
