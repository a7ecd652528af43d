"""kwcall's benchmark suite: ``python -m kwcall.bench [--quick] [--device cpu|cuda]``.

Measures, side by side in one process, the cost of calling a kernel-like tvm-ffi function
through each route (the function itself, the CuTeDSL 4.6+ route, tvm-ffi's
``make_kwargs_wrapper``, and kwcall) from C++ and from Python, and how C++ threads scale.
See ``__main__.py`` for the flow and ``report.py`` for the outputs.
"""
