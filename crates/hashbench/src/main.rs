//! The `hashbench` command line; see `hashbench --help`.

fn main() -> std::process::ExitCode {
    hashbench::end_quietly_on_a_closed_pipe();
    match hashbench::main_with_args(std::env::args_os()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
