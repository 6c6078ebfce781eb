// A call whose two arguments each create an op: flagged. A braced list is
// evaluated left to right: not flagged.
void f() {
  Value v = b.create<A>(loc, b.create<B>(loc), cst(2));
  g({cst(1), cst(2)});
}
