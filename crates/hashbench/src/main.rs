//! The `hashbench` command line; see `hashbench --help`.

fn main() -> std::process::ExitCode {
    match hashbench::main_with_args(std::env::args_os()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
