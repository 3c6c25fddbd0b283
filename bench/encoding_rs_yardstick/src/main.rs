//! Decodes files with encoding_rs and prints MB/s (of input bytes, best of N runs) per file.
//!
//!     encoding_rs_yardstick REPEAT LABEL FILE [LABEL FILE ...]
//!
//! Prints one line per pair: `LABEL utf8_mb_s utf16_mb_s`, where utf8 is
//! `Encoding::decode_without_bom_handling` (a Rust String, the common API) and utf16 is
//! `Decoder::decode_to_utf16` (with replacement) into a buffer of the maximum length it may need:
//! what Firefox does, and a UTF-16 buffer is also what a CJK Python str is.
//! Each result is checked to be used, so the optimiser cannot drop the work.

use encoding_rs::Encoding;
use std::hint::black_box;
use std::time::Instant;

fn best_seconds<F: FnMut() -> usize>(repeat: usize, mut run: F) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..repeat {
        let start = Instant::now();
        black_box(run());
        best = best.min(start.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 || (args.len() - 2) % 2 != 0 {
        eprintln!("usage: {} REPEAT LABEL FILE [LABEL FILE ...]", args[0]);
        std::process::exit(2);
    }
    let repeat: usize = args[1].parse().expect("REPEAT is a number");
    for pair in args[2..].chunks(2) {
        let (label, path) = (&pair[0], &pair[1]);
        let encoding = Encoding::for_label(label.as_bytes()).expect("a WHATWG label");
        let bytes = std::fs::read(path).expect("a readable file");
        let mb = bytes.len() as f64 / 1e6;
        let utf8 = best_seconds(repeat, || {
            let (text, _) = encoding.decode_without_bom_handling(black_box(&bytes));
            text.len()
        });
        let mut buffer: Vec<u16> = Vec::new();
        let utf16 = best_seconds(repeat, || {
            let mut decoder = encoding.new_decoder_without_bom_handling();
            let needed = decoder.max_utf16_buffer_length(bytes.len()).expect("no overflow");
            buffer.clear();
            buffer.resize(needed, 0);
            let (_, _, written, _) = decoder.decode_to_utf16(black_box(&bytes), &mut buffer, true);
            written
        });
        println!("{} {:.1} {:.1}", label, mb / utf8, mb / utf16);
    }
}
