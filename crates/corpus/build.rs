//! Rebuilds the embedded corpus whenever anything under `cases/` changes: the `include_dir!`
//! macro cannot tell cargo which files it read, so this script does (cargo scans a watched
//! directory recursively).

fn main() {
    println!("cargo:rerun-if-changed=../../cases");
}
