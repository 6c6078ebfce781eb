// A call whose two arguments each create an op: flagged. A braced list is
// evaluated left to right: not flagged.
void f() {
  Value v = b.create<A>(loc, b.create<B>(loc), cst(2));
  g({cst(1), cst(2)});
  Value w = a.bin<AddOp>(a.bin<MaximumOp>(x, a.c(0.0)), a.c(3.0));
  Value u = bin<AddOp>(bin<DivOp>(x, c(6.0)), c(0.5));
  Value ok = a.bin<AddOp>(pos, a.bin<MulOp>(a.c(2.0), neg));
}
