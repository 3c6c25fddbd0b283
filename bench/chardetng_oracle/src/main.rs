//! Reads pages from stdin, each as a line "TLD LENGTH\n" (TLD "-" for none) followed by LENGTH bytes, and prints
//! for each the encoding chardetng guesses (UTF-8 not allowed, as Firefox guesses for HTTP pages), one per line.
use std::io::{self, BufRead, Read, Write};

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut header = String::new();
    loop {
        header.clear();
        if input.read_line(&mut header).expect("read a header") == 0 {
            break;
        }
        let mut fields = header.split_whitespace();
        let tld = fields.next().expect("a TLD field");
        let length: usize = fields.next().expect("a LENGTH field").parse().expect("LENGTH is a number");
        let mut body = vec![0u8; length];
        input.read_exact(&mut body).expect("LENGTH bytes");
        let mut detector = chardetng::EncodingDetector::new();
        detector.feed(&body, true);
        let tld = if tld == "-" { None } else { Some(tld.as_bytes()) };
        writeln!(out, "{}", detector.guess(tld, false).name()).expect("write");
    }
}
