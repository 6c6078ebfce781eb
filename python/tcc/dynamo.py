"""torch.compile(model, backend="tcc"): a Dynamo backend that compiles each
captured graph ahead of time with tcc.

    opt = torch.compile(model, backend="tcc")            # entry point torch_dynamo_backends
    opt = torch.compile(model, backend=tcc.backend)      # the same, without the entry point
    opt = torch.compile(model, backend="tcc", options={"strict": True})

Dynamo hands the backend an FX graph whose placeholders are the user's
tensors, the module's parameters and buffers (the tensors Dynamo marks as
static inputs: nn.Module attributes) and, with dynamic shapes, the symbolic
sizes as integers. The backend wraps the graph in a module that owns the
parameters and buffers as its own (so that tcc sees them as weights: folded,
packed and hoisted once per binding), computes each symbolic size from the
tensor dimension it names, exports that with torch.export (symbolic
dimensions as torch.export.Dim with their ranges) and compiles it with
tcc.compile's machinery, through the same on-disk cache. The compiled graph
is called with the user's tensors alone; weights are bound once (by pointer
on the CPU) and bound again when Dynamo passes other weight tensors.

Writes are honoured as tcc.compile honours them (issue 37): a buffer the
graph writes in place (a running sum, a static key/value cache written with
index_copy_ or an indexed assignment) is a state of the compiled model bound
to the module's own tensor, so calls write that buffer as eager PyTorch
does; a user input written in place is written through; an output that is a
written tensor itself (`x.mul_(2); return x`) is that tensor, as in eager. A
write tcc cannot honour (a non-contiguous buffer, a written tensor sharing
memory with another argument) is refused naming the tensor Dynamo passed,
never run with the write dropped.

A graph that cannot be exported or that tcc refuses runs eagerly (the graph
Dynamo captured, as backend="eager" would), with one warning carrying tcc's
message (operator and Python line). Options (torch.compile's options= or
environment variables):

  strict (TCC_STRICT=1): raise instead of falling back to eager.
  target: "cpu", "cuda" or "cpu,cuda" (default: the example inputs' device).
  precision (TCC_PRECISION): "fp32" (default), "tf32", "bf16".
  cache_dir: as tcc.compile's (default $TCC_CACHE_DIR or ~/.cache/tcc).
  dynamic_max (TCC_DYNAMIC_MAX): the maximum given to a symbolic dimension
    Dynamo leaves unbounded (default: 1024, or twice the example's size when
    that is larger); tcc plans the intermediates for it. A call beyond it
    compiles the graph again with twice that call's size as the maximum (one
    compile per doubling); a call outside a range Dynamo bounded itself
    (mark_dynamic's min/max) runs eagerly, with one warning.
"""
import keyword
import operator
import os
import warnings

from . import GuardError, TccError, load
from .compiler import (CompileError, _check_options, bind_program_weights, compile_exported,
                       program_weights)

_OPTIONS = ("strict", "target", "precision", "cache_dir", "dynamic_max")


class _Options:
    def __init__(self, options):
        options = dict(options or {})
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise TccError(f"tcc backend: unknown option(s) {', '.join(unknown)}; "
                           f"known: {', '.join(_OPTIONS)}")
        strict = options.get("strict", os.environ.get("TCC_STRICT", "0"))
        self.strict = strict not in (False, 0, "0", "", "false", "False")
        self.target = options.get("target")
        self.precision = options.get("precision", os.environ.get("TCC_PRECISION", "fp32"))
        self.cache_dir = options.get("cache_dir")
        self.dynamic_max = int(options.get("dynamic_max",
                                           os.environ.get("TCC_DYNAMIC_MAX", "1024")))
        _check_options(self.target or "cpu", self.precision)


def _is_weight(node, value, torch):
    """Whether a placeholder of a Dynamo graph is a module's parameter or
    buffer (or another tensor attribute of a module) rather than a user input."""
    if isinstance(value, torch.nn.Parameter):
        return True
    if getattr(value, "_dynamo_static_input_type", None) is not None:
        return True
    grapharg = node.meta.get("grapharg")
    source = getattr(grapharg, "source", None)
    if source is not None:
        guard = source.guard_source
        return guard.is_unspecialized_nn_module() or guard.is_specialized_nn_module()
    return False


def _source_name(node):
    """Where Dynamo read a placeholder from (L['self'].acc), else its name."""
    source = getattr(node.meta.get("grapharg"), "source", None)
    try:
        return source.name if isinstance(source.name, str) else source.name()
    except Exception:  # noqa: BLE001 - no source: the placeholder's name
        return node.name


def _aliased_outputs(ep, program):
    """{flat output index: graph argument position} for the outputs that are
    an argument itself, as written in place or as passed (`x.mul_(2); return
    x`): eager returns that very tensor."""
    import torch
    sig = ep.graph_signature
    user_inputs = [spec.arg.name for spec in sig.input_specs
                   if spec.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    position = {name: program.user_positions[k] for k, name in enumerate(user_inputs)}
    for spec in sig.input_specs:
        if spec.target in program.weight_positions:
            position[spec.arg.name] = program.weight_positions[spec.target]
    nodes = {n.name: n for n in ep.graph.nodes}
    user_outputs = [spec.arg.name for spec in sig.output_specs
                    if spec.kind == torch.export.graph_signature.OutputKind.USER_OUTPUT]
    aliases = {}
    for k, name in enumerate(user_outputs):
        node = nodes.get(name)
        # In-place operators return their first argument (Tensor(a!) -> Tensor(a!)).
        while (node is not None and node.op == "call_function"
               and isinstance(node.target, torch._ops.OpOverload)
               and node.target._schema.returns
               and node.target._schema.returns[0].alias_info is not None
               and node.target._schema.returns[0].alias_info.is_write
               and node.args and isinstance(node.args[0], torch.fx.Node)):
            node = node.args[0]
        if node is not None and node.op == "placeholder" and node.name in position:
            aliases[k] = position[node.name]
    return aliases


def _check_written_memory(model, program, examples, torch):
    """A CompileError where a tensor the graph writes in place shares memory
    with another argument: tcc reads its inputs while it writes its states,
    so the other argument would not see the write where eager's does."""
    written = {n: program.weights[n] for n in model.state_names}
    written.update({program.user_names[i]: examples[i] for i in model._written_inputs})
    others = dict(program.weights)
    others.update(zip(program.user_names, examples))
    for name, tensor in written.items():
        storage = tensor.untyped_storage().data_ptr()
        for other, value in others.items():
            if other != name and value.untyped_storage().data_ptr() == storage:
                raise CompileError(
                    f"the graph writes {_shown(name, program)} in place and it shares memory "
                    f"with {_shown(other, program)}: tcc cannot honour that write "
                    "(pass a tensor of its own)")


def _shown(name, program):
    """A weight or input as the user knows it: Dynamo's source for a weight."""
    if name in program.sources:
        return f"{program.sources[name]} (tcc state '{name}')"
    return f"input '{name}'"


class _GraphProgram:
    """How the placeholders of a Dynamo graph map onto the exported program's
    inputs: ("weight", name), ("input", k) or ("size", (k, dim))."""

    def __init__(self, gm, example_inputs, torch):
        self.layout = []
        self.weights = {}
        self.sources = {}  # weight name -> what Dynamo read it from (for messages)
        self.user_examples = []
        self.user_fakes = []
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(example_inputs):
            raise TccError("the graph's placeholders and example inputs differ in number")
        self.user_names = []
        pending = []
        for node, value in zip(placeholders, example_inputs):
            if isinstance(value, torch.Tensor):
                if _is_weight(node, value, torch):
                    name = f"w{len(self.weights)}_{node.name}"
                    self.weights[name] = value
                    self.sources[name] = _source_name(node)
                    self.layout.append(("weight", name))
                else:
                    self.layout.append(("input", len(self.user_examples)))
                    self.user_examples.append(value)
                    self.user_fakes.append(node.meta.get("example_value"))
                    self.user_names.append(self._input_name(node.name))
            elif isinstance(value, (int, torch.SymInt)):
                self.layout.append(None)
                pending.append((len(self.layout) - 1, node))
            else:
                raise TccError(f"graph input '{node.name}' is a {type(value).__name__}; "
                               "tcc compiles graphs of tensors and sizes")
        if not self.user_examples:
            raise TccError("the graph reads no input tensors (weights and constants alone); "
                           "a compiled model needs inputs")
        # A size argument is read from a user tensor's dimension of that size.
        for index, node in pending:
            sym = node.meta.get("example_value")
            where = self._dimension_of(sym, torch)
            if where is None:
                raise TccError(f"graph input '{node.name}' ({sym}) is not a dimension of "
                               "an input tensor")
            self.layout[index] = ("size", where)
        self._find_symbols(torch)
        self.user_positions = [i for i, (kind, _) in enumerate(self.layout)
                               if kind == "input"]
        self.weight_positions = {self.layout[i][1]: i for i in range(len(self.layout))
                                 if self.layout[i][0] == "weight"}

    def _input_name(self, placeholder):
        """x for Dynamo's l_x_ (a local named x); unique, an identifier."""
        name = placeholder[2:] if placeholder.startswith(("l_", "L_")) else placeholder
        name = name.rstrip("_") or "input"
        if not name.isidentifier() or keyword.iskeyword(name) or name == "self":
            name = "input"
        base, k = name, 1
        while name in self.user_names:
            name, k = f"{base}_{k}", k + 1
        return name

    def _dimension_of(self, sym, torch):
        if not isinstance(sym, torch.SymInt):
            return None
        for k, fake in enumerate(self.user_fakes):
            if fake is None:
                continue
            for d, size in enumerate(fake.shape):
                if isinstance(size, torch.SymInt) and size.node.expr == sym.node.expr:
                    return (k, d)
        return None

    def _find_symbols(self, torch):
        """Dynamo's symbols among the user tensors' sizes: name -> the (input,
        dim) places of that size, Dynamo's range (max None where unbounded)
        and the largest example size."""
        import sympy
        self.symbols = {}
        for k, (fake, example) in enumerate(zip(self.user_fakes, self.user_examples)):
            for d, size in enumerate(getattr(fake, "shape", ())):
                if not isinstance(size, torch.SymInt):
                    continue
                expr = size.node.expr
                if expr.is_number:  # specialized by the graph
                    continue
                if not isinstance(expr, sympy.Symbol):
                    raise TccError(f"dimension {d} of an input has size {expr}; tcc "
                                   "compiles inputs whose dynamic sizes are plain symbols")
                name = str(expr)
                if name not in self.symbols:
                    vr = size.node.shape_env.var_to_range.get(expr)
                    # Unbounded ends are torch's int_oo (not sympy integers).
                    lo = vr.lower if vr is not None else None
                    hi = vr.upper if vr is not None else None
                    self.symbols[name] = {
                        "places": [], "example": 0,
                        "min": max(int(lo), 0) if isinstance(lo, sympy.Integer) else 0,
                        "max": int(hi) if isinstance(hi, sympy.Integer) else None}
                self.symbols[name]["places"].append((k, d))
                self.symbols[name]["example"] = max(self.symbols[name]["example"],
                                                    int(example.shape[d]))

    def initial_maxima(self, options):
        """The maximum of each symbol Dynamo leaves unbounded: `dynamic_max`,
        or twice the example size."""
        return {name: max(options.dynamic_max, 2 * sym["example"])
                for name, sym in self.symbols.items() if sym["max"] is None}

    def grown_maxima(self, inputs, maxima):
        """Maxima covering `inputs` (twice the size of each unbounded symbol
        they exceed), or None where no unbounded symbol is exceeded."""
        grown = dict(maxima)
        for name, sym in self.symbols.items():
            if sym["max"] is None:
                size = max(int(inputs[k].shape[d]) for k, d in sym["places"])
                if size > maxima[name]:
                    grown[name] = 2 * size
        return grown if grown != maxima else None

    def dynamic_shapes(self, maxima, torch):
        """torch.export dynamic_shapes for the user tensors: one Dim per symbol
        of Dynamo's (named as Dynamo named it) with Dynamo's range, `maxima`
        for the unbounded ones; None where all sizes are static."""
        if not self.symbols:
            return None
        specs = [{} for _ in self.user_fakes]
        for name, sym in self.symbols.items():
            hi = sym["max"] if sym["max"] is not None else maxima[name]
            dim = torch.export.Dim(name, min=sym["min"], max=hi)
            for k, d in sym["places"]:
                specs[k][d] = dim
        # One entry per forward parameter.
        return tuple(spec or None for spec in specs)

    def module(self, gm, torch):
        """An nn.Module owning the weights and calling the graph on the user
        tensors, its nodes' stack traces kept (errors name the user's line)."""
        from torch.fx import traceback as fx_traceback
        layout = self.layout

        class Program(torch.nn.Module):
            def __init__(self, weights):
                super().__init__()
                self.graph_module = gm
                for name, value in weights.items():
                    if isinstance(value, torch.nn.Parameter):
                        self.register_parameter(name, value)
                    else:
                        self.register_buffer(name, value)

            def run_graph(self, inputs):
                args = []
                for kind, ref in layout:
                    if kind == "weight":
                        args.append(getattr(self, ref))
                    elif kind == "input":
                        args.append(inputs[ref])
                    else:
                        args.append(inputs[ref[0]].size(ref[1]))
                with fx_traceback.preserve_node_meta():
                    return torch.fx.Interpreter(self.graph_module).run(*args)

        # forward(self, x, y): the user's names (Dynamo's placeholder "l_x_"
        # for the local x) become the exported inputs' names, which tcc's
        # guard messages show ("input 'x' (#0) dimension 0: ...").
        params = ", ".join(self.user_names)
        namespace = {}
        exec(f"def forward(self, {params}):\n    return self.run_graph(({params},))\n",
             namespace)
        Program.forward = namespace["forward"]
        return Program(self.weights)


def _default_target(example_inputs, torch):
    devices = {t.device.type for t in example_inputs if isinstance(t, torch.Tensor)}
    return "cuda" if devices == {"cuda"} else "cpu"


def _build(gm, program, examples, maxima, options, target, torch):
    """Exports the graph on `examples` (user tensors) with `maxima` for the
    unbounded symbols, compiles it (or finds it in the cache), loads it and
    binds the weights: (model, out_spec, weights)."""
    module = program.module(gm, torch)
    dynamic_shapes = program.dynamic_shapes(maxima, torch)
    # Outside Dynamo's tracing context: export's own guards must not land
    # among the guards of the frame Dynamo is compiling.
    with torch._guards.tracing(None), torch._guards.compile_context(None):
        ep = torch.export.export(module, tuple(examples), dynamic_shapes=dynamic_shapes)
    so, _ = compile_exported(ep, target=target, precision=options.precision,
                             cache_dir=options.cache_dir)
    weights = program_weights(ep)
    model = load(so)
    _check_written_memory(model, program, examples, torch)
    try:
        # The buffers the graph writes are bound as the model's states.
        bind_program_weights(model, weights)
    except TccError as e:
        raise CompileError(_written_refusal(e, model, program)) from None
    return model, ep.call_spec.out_spec, weights, _aliased_outputs(ep, program)


def _written_refusal(error, model, program):
    """`error` (binding a state failed) with the tensor named as Dynamo passed it."""
    names = [n for n in model.state_names if f"'{n}'" in str(error)]
    if not names:
        return str(error)
    return (f"the graph writes {_shown(names[0], program)} in place and tcc cannot "
            f"honour that write: {error}")


class _CompiledGraph:
    """The callable Dynamo gets: the graph's arguments in, its outputs out."""

    def __init__(self, gm, program, built, maxima, options, target, torch):
        from torch.utils import _pytree as pytree
        self.gm = gm
        self.program = program
        self.maxima = maxima
        self.options = options
        self.target = target
        self.unflatten = pytree.tree_unflatten
        self.positions = positions = tuple(program.user_positions)
        if len(positions) == 1:
            only = positions[0]
            self.pick = lambda args: (args[only],)
        else:
            self.pick = operator.itemgetter(*positions)
        self.warned = False
        self.use(*built)

    def use(self, model, out_spec, weights_by_name, aliases):
        """Calls go to `model` from now on."""
        from torch.utils import _pytree as pytree
        self.model = model
        self.states = frozenset(model.state_names)
        self.aliases = tuple(aliases.items())
        self.run_flat = model.run_flat
        self.out_spec = out_spec
        # The graph's own output tuple is built directly; other structures
        # go through the tree spec.
        flat_tuple = pytree.tree_flatten(tuple(range(out_spec.num_leaves)))[1]
        self.tuple_out = out_spec == flat_tuple
        # (argument index, name, the tensor bound): a call checks that Dynamo
        # passes the very tensors bound (identity: cheaper than data_ptr).
        positions = self.program.weight_positions
        self.weight_args = tuple((positions[name], name, weights_by_name[name])
                                 for name in weights_by_name if name in positions)

    def rebind(self, args):
        """Binds the weights Dynamo passes where they are not the tensors bound
        (a module whose parameters were replaced, e.g. by load_state_dict with
        assign=True, or another instance of the module running the same
        graph); a written buffer is bound as the state, in place. Returns
        False (after a warning, or raises where strict) where a written buffer
        cannot be bound: the call then runs eagerly."""
        moved = {name: args[i] for i, name, bound in self.weight_args if args[i] is not bound}
        self.model.bind_weights({n: t for n, t in moved.items() if n not in self.states})
        try:
            self.model.bind_state({n: t for n, t in moved.items() if n in self.states})
        except TccError as e:
            message = _written_refusal(e, self.model, self.program)
            if self.options.strict:
                raise CompileError(message) from None
            if not self.warned:
                warnings.warn(f"tcc: a call runs eagerly: {message}", stacklevel=3)
                self.warned = True
            return False
        self.weight_args = tuple((i, name, args[i]) for i, name, _ in self.weight_args)
        return True

    def grow(self, args, guard_error):
        """After a guard failure: where a symbol Dynamo left unbounded
        outgrew its maximum, compiles the graph again with twice the size as
        the maximum and returns True; else (or if that fails) warns once and
        returns False (the call then runs eagerly)."""
        import torch
        inputs = self.pick(args)
        maxima = self.program.grown_maxima(inputs, self.maxima)
        why = str(guard_error)
        if maxima is not None:
            try:
                built = _build(self.gm, self.program, inputs, maxima, self.options,
                               self.target, torch)
                self.maxima = maxima
                self.use(*built)
                return True
            except Exception as e:  # noqa: BLE001 - reported in the warning
                why = f"{why}; compiling it for larger sizes failed: {e}"
        if not self.warned:
            warnings.warn(f"tcc: inputs outside the sizes this graph was compiled for "
                          f"({why}); such calls run eagerly", stacklevel=3)
            self.warned = True
        return False

    def __call__(self, *args):
        for i, _, bound in self.weight_args:
            if args[i] is not bound:
                if not self.rebind(args):
                    return self.gm(*args)
                break
        try:
            outputs = self.run_flat(self.pick(args))
        except GuardError as e:
            if not self.grow(args, e):
                return self.gm(*args)
            outputs = self.run_flat(self.pick(args))
        for k, i in self.aliases:
            outputs[k] = args[i]
        if self.tuple_out:
            return tuple(outputs)
        return self.unflatten(outputs, self.out_spec)


def compile_graph(gm, example_inputs, options):
    """Exports and compiles one Dynamo graph; returns the callable Dynamo runs.
    Raises CompileError (tcc refused it) or another exception (export failed)."""
    import torch
    program = _GraphProgram(gm, example_inputs, torch)
    maxima = program.initial_maxima(options)
    target = options.target or _default_target(example_inputs, torch)
    built = _build(gm, program, program.user_examples, maxima, options, target, torch)
    # The example tensors are not kept alive by the compiled graph; a
    # recompile for larger sizes exports on the call's own inputs.
    program.user_examples = None
    return _CompiledGraph(gm, program, built, maxima, options, target, torch)


def backend(gm, example_inputs, options=None, mode=None):
    """The Dynamo backend (see the module's docstring): torch.compile(model,
    backend="tcc") or backend=tcc.backend; options= as described there.
    `mode` is accepted and ignored (tcc has one mode)."""
    opts = _Options(options)
    try:
        return compile_graph(gm, example_inputs, opts)
    except CompileError as e:
        if opts.strict:
            raise
        why = f"tcc could not compile it:\n{e}"
    except TccError as e:
        if opts.strict or "cannot find the tcc executable" in str(e):
            raise
        why = str(e)
    except Exception as e:  # torch.export failed on the graph
        if opts.strict:
            raise
        why = f"torch.export could not export it: {type(e).__name__}: {e}"
    warnings.warn(f"tcc: a graph runs eagerly: {why}", stacklevel=2)
    return gm.forward
