//! Compiles `solver/v1/*.proto` with the pure-Rust `protox` compiler (no system `protoc`)
//! and writes the encoded descriptor set for gRPC reflection.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files: Vec<PathBuf> = std::fs::read_dir("solver/v1")?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "proto"))
        .collect();
    let mut files = files;
    files.sort();
    let fds = protox::compile(&files, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("solver_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    tonic_prost_build::configure().compile_fds(fds)?;
    println!("cargo:rerun-if-changed=solver/v1");
    Ok(())
}
