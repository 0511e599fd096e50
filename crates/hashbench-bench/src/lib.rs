//! Benchmarks only (`benches/`); run them with `just bench`. Kept in a crate of
//! their own so that a release build for benchmarking never compiles polars.
