#![doc = include_str!("../README.md")]

pub mod hamming;
pub mod math;
pub mod vector;
