//! The `solver-worker` binary.

fn main() {
    eprintln!("solver-worker: the job loop is not built yet (see issue 5)");
    std::process::exit(1);
}
