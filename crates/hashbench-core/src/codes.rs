//! Packed binary codes. One code occupies `words_per_code` little-endian `u64`
//! words; bit `j` of a code lives in word `j / 64` at position `j % 64`. Unused
//! high bits of the last word are always zero, so Hamming distance is a plain
//! `count_ones` over XORed words.

use std::io::{self, Read, Write};

use faer::MatRef;

/// Magic bytes opening the on-disk code layout written by [`BitCodes::write_to`].
pub const CODES_MAGIC: &[u8; 8] = b"HBCODES1";

/// A set of `len` binary codes of `n_bits` bits each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitCodes {
    n_bits: usize,
    words_per_code: usize,
    words: Vec<u64>,
}

impl BitCodes {
    /// `len` all-zero codes of `n_bits` bits.
    pub fn zeros(len: usize, n_bits: usize) -> Self {
        let words_per_code = n_bits.div_ceil(64).max(1);
        Self {
            n_bits,
            words_per_code,
            words: vec![0; len * words_per_code],
        }
    }

    /// Codes from real-valued projections (rows = items, columns = bits):
    /// bit = 1 where the projection is > 0.
    pub fn from_projections(p: MatRef<'_, f64>) -> Self {
        Self::from_fn(p.nrows(), p.ncols(), |i, j| p[(i, j)] > 0.0)
    }

    /// Codes whose bit `j` of item `i` is `f(i, j)`.
    pub fn from_fn(len: usize, n_bits: usize, mut f: impl FnMut(usize, usize) -> bool) -> Self {
        let mut c = Self::zeros(len, n_bits);
        for i in 0..len {
            for j in 0..n_bits {
                if f(i, j) {
                    c.words[i * c.words_per_code + j / 64] |= 1u64 << (j % 64);
                }
            }
        }
        c
    }

    /// Number of codes.
    pub fn len(&self) -> usize {
        self.words.len() / self.words_per_code
    }

    /// True when there are no codes.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Bits per code.
    pub fn n_bits(&self) -> usize {
        self.n_bits
    }

    /// `u64` words per code.
    pub fn words_per_code(&self) -> usize {
        self.words_per_code
    }

    /// The packed words of code `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[track_caller]
    pub fn code(&self, i: usize) -> &[u64] {
        &self.words[i * self.words_per_code..(i + 1) * self.words_per_code]
    }

    /// All packed words, code after code.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bit `j` of code `i`.
    ///
    /// # Panics
    /// If `i` or `j` is out of range.
    #[track_caller]
    pub fn bit(&self, i: usize, j: usize) -> bool {
        assert!(j < self.n_bits, "bit {j} out of range 0..{}", self.n_bits);
        self.words[i * self.words_per_code + j / 64] >> (j % 64) & 1 == 1
    }

    /// The bits that are equal in every code (none for fewer than two
    /// codes): a hash function that says nothing about any item, as a dead
    /// atom of a sparse code does.
    pub fn constant_bits(&self) -> usize {
        if self.len() < 2 {
            return 0;
        }
        let w = self.words_per_code;
        let (mut all, mut any) = (vec![u64::MAX; w], vec![0u64; w]);
        for code in self.words.chunks_exact(w) {
            for ((a, o), &c) in all.iter_mut().zip(&mut any).zip(code) {
                *a &= c;
                *o |= c;
            }
        }
        (0..w)
            .map(|k| {
                // the bits of this word that belong to the code
                let used = (self.n_bits - 64 * k).min(64);
                let mask = if used == 64 {
                    u64::MAX
                } else {
                    (1u64 << used) - 1
                };
                ((all[k] | !any[k]) & mask).count_ones() as usize
            })
            .sum()
    }

    /// Flips bit `j` in every code (a relabelling of one hash function's output).
    ///
    /// # Panics
    /// If `j >= self.n_bits()`.
    #[track_caller]
    pub fn flip_bit_everywhere(&mut self, j: usize) {
        assert!(j < self.n_bits, "bit {j} out of range 0..{}", self.n_bits);
        let (w, mask) = (j / 64, 1u64 << (j % 64));
        for code in self.words.chunks_exact_mut(self.words_per_code) {
            code[w] ^= mask;
        }
    }

    /// `self`'s codes followed by `more`'s.
    ///
    /// # Panics
    /// If their code lengths differ.
    #[track_caller]
    pub fn append(&mut self, more: &BitCodes) {
        assert_eq!(
            self.n_bits, more.n_bits,
            "appending codes of another length"
        );
        self.words.extend_from_slice(&more.words);
    }

    /// Bytes per code in the packed byte layout ([`BitCodes::to_packed_bytes`]).
    pub fn bytes_per_code(n_bits: usize) -> usize {
        n_bits.div_ceil(8)
    }

    /// The codes as packed bytes, [`BitCodes::bytes_per_code`] per code,
    /// code after code: bit `j` of a code is bit `j % 8` (least significant
    /// first) of byte `j / 8`, numpy's `packbits(bitorder="little")` and a
    /// layout faiss's binary indexes take (their distance is a popcount of
    /// XORed bytes, whatever the order within a byte). Padding bits are zero.
    pub fn to_packed_bytes(&self) -> Vec<u8> {
        let per_code = Self::bytes_per_code(self.n_bits);
        let mut out = Vec::with_capacity(self.len() * per_code);
        for i in 0..self.len() {
            let bytes = self.code(i).iter().flat_map(|w| w.to_le_bytes());
            out.extend(bytes.take(per_code));
        }
        out
    }

    /// Codes of `n_bits` bits from the packed byte layout of
    /// [`BitCodes::to_packed_bytes`].
    ///
    /// # Errors
    /// `InvalidData` when the byte count is not a whole number of codes or a
    /// code has a padding bit set (naming the code).
    pub fn from_packed_bytes(n_bits: usize, bytes: &[u8]) -> io::Result<Self> {
        let per_code = Self::bytes_per_code(n_bits);
        if per_code == 0 || !bytes.len().is_multiple_of(per_code) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} bytes are not whole codes of {per_code} bytes ({n_bits} bits)",
                    bytes.len()
                ),
            ));
        }
        let mut codes = Self::zeros(bytes.len() / per_code, n_bits);
        let words_per_code = codes.words_per_code;
        for (i, code) in bytes.chunks_exact(per_code).enumerate() {
            let words = &mut codes.words[i * words_per_code..(i + 1) * words_per_code];
            for (word, chunk) in words.iter_mut().zip(code.chunks(8)) {
                let mut le = [0u8; 8];
                le[..chunk.len()].copy_from_slice(chunk);
                *word = u64::from_le_bytes(le);
            }
            let last = words[words_per_code - 1];
            let used = n_bits - 64 * (words_per_code - 1);
            if used < 64 && last >> used != 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("code {i} has a bit set beyond its {n_bits} bits"),
                ));
            }
        }
        Ok(codes)
    }

    /// The codes at `rows`, in that order.
    pub fn select(&self, rows: &[usize]) -> Self {
        let mut words = Vec::with_capacity(rows.len() * self.words_per_code);
        for &r in rows {
            words.extend_from_slice(self.code(r));
        }
        Self {
            n_bits: self.n_bits,
            words_per_code: self.words_per_code,
            words,
        }
    }

    /// Writes the documented binary layout: the 8 bytes `HBCODES1`, then `len` as
    /// u64 LE, `n_bits` as u32 LE, `words_per_code` as u32 LE, then every word as
    /// u64 LE, code after code (bit `j` of a code = bit `j % 64` of word `j / 64`).
    /// The padding (bits `n_bits..64 · words_per_code` of each code) is zero:
    /// readers refuse a file where it is not.
    ///
    /// # Errors
    /// Any I/O error of the writer.
    pub fn write_to(&self, mut w: impl Write) -> io::Result<()> {
        w.write_all(CODES_MAGIC)?;
        w.write_all(&(self.len() as u64).to_le_bytes())?;
        w.write_all(&(self.n_bits as u32).to_le_bytes())?;
        w.write_all(&(self.words_per_code as u32).to_le_bytes())?;
        for word in &self.words {
            w.write_all(&word.to_le_bytes())?;
        }
        Ok(())
    }

    /// Reads the layout written by [`BitCodes::write_to`].
    ///
    /// # Errors
    /// `InvalidData` on a wrong magic, an inconsistent header or a code with a
    /// padding bit set (naming the code), `UnexpectedEof` on a truncated body.
    pub fn read_from(mut r: impl Read) -> io::Result<Self> {
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != CODES_MAGIC {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a HBCODES1 file",
            ));
        }
        let mut b8 = [0u8; 8];
        let mut b4 = [0u8; 4];
        r.read_exact(&mut b8)?;
        let len = u64::from_le_bytes(b8) as usize;
        r.read_exact(&mut b4)?;
        let n_bits = u32::from_le_bytes(b4) as usize;
        r.read_exact(&mut b4)?;
        let words_per_code = u32::from_le_bytes(b4) as usize;
        if words_per_code != n_bits.div_ceil(64).max(1) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{words_per_code} words per code cannot hold {n_bits} bits"),
            ));
        }
        let total = len.checked_mul(words_per_code).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{len} codes of {words_per_code} words overflow the address space"),
            )
        })?;
        // the header is not trusted for the allocation: the body must back it
        let mut words = Vec::with_capacity(total.min(1 << 16));
        let padding = match n_bits % 64 {
            0 => 0,
            used => !0u64 << used,
        };
        for k in 0..total {
            r.read_exact(&mut b8)?;
            let word = u64::from_le_bytes(b8);
            if k % words_per_code == words_per_code - 1 && word & padding != 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "code {} sets padding bits (above bit {} of its last word), which the layout keeps zero: not {n_bits}-bit codes as the header says",
                        k / words_per_code,
                        n_bits % 64 - 1
                    ),
                ));
            }
            words.push(word);
        }
        Ok(Self {
            n_bits,
            words_per_code,
            words,
        })
    }
}

#[cfg(test)]
mod tests {

    /// Constant bits counted against a per-bit scan, on codes that cross a
    /// word boundary (70 bits): bit 3 always 1, bit 65 always 0, bit 69
    /// varying only in the last code; the unused high bits of the second
    /// word never count.
    #[test]
    fn constant_bits_are_those_equal_in_every_code() {
        let n = 5;
        let c = BitCodes::from_fn(n, 70, |i, j| match j {
            3 => true,
            65 => false,
            69 => i == n - 1,
            _ => (i + j) % 2 == 0,
        });
        let scan = (0..70)
            .filter(|&j| (1..n).all(|i| c.bit(i, j) == c.bit(0, j)))
            .count();
        assert_eq!(scan, 2);
        assert_eq!(c.constant_bits(), scan);
        assert_eq!(BitCodes::zeros(4, 70).constant_bits(), 70);
        assert_eq!(BitCodes::zeros(1, 70).constant_bits(), 0);
    }
    use super::*;

    #[test]
    fn packed_bytes_put_bit_j_at_bit_j_mod_8_of_byte_j_div_8_and_round_trip() {
        // 70 bits: two words, nine bytes per code
        let codes = BitCodes::from_fn(3, 70, |i, j| (i + j) % 3 == 0 || j == 69);
        let bytes = codes.to_packed_bytes();
        assert_eq!(bytes.len(), 3 * 9);
        for i in 0..3 {
            for j in 0..70 {
                let byte = bytes[i * 9 + j / 8];
                assert_eq!(byte >> (j % 8) & 1 == 1, codes.bit(i, j), "{i} {j}");
            }
        }
        // code 0's bits 0, 3 and 6 are set: 0b0100_1001
        assert_eq!(bytes[0], 0b0100_1001);
        assert_eq!(BitCodes::from_packed_bytes(70, &bytes).unwrap(), codes);
        let mut padded = bytes.clone();
        padded[9 + 8] |= 0b1000_0000;
        let refused = BitCodes::from_packed_bytes(70, &padded).unwrap_err();
        assert!(refused.to_string().contains("code 1"), "{refused}");
        assert!(BitCodes::from_packed_bytes(70, &bytes[..26]).is_err());
    }

    #[test]
    fn bits_are_packed_lsb_first_and_padding_stays_zero() {
        let c = BitCodes::from_fn(2, 70, |i, j| (i == 0 && j == 0) || (i == 1 && j == 69));
        assert_eq!(c.words_per_code(), 2);
        assert_eq!(c.code(0), &[1, 0]);
        assert_eq!(c.code(1), &[0, 1 << 5]);
        assert!(c.bit(1, 69) && !c.bit(1, 68));
    }

    #[test]
    fn a_file_with_a_padding_bit_set_is_refused_naming_the_code() {
        for bits in [16, 32, 70] {
            let c = BitCodes::from_fn(3, bits, |i, j| (i + j) % 3 == 0);
            let mut bytes = Vec::new();
            c.write_to(&mut bytes).unwrap();
            assert_eq!(BitCodes::read_from(&bytes[..]).unwrap(), c);
            // the highest bit of code 1's last word: padding at every length here
            let last = 24 + 8 * (2 * c.words_per_code() - 1) + 7;
            bytes[last] |= 0x80;
            let e = BitCodes::read_from(&bytes[..]).unwrap_err().to_string();
            assert!(e.contains("code 1 sets padding bits"), "{bits}: {e}");
        }
        // at 64 bits every bit of the word is a code bit
        let c = BitCodes::from_fn(1, 64, |_, j| j == 63);
        let mut bytes = Vec::new();
        c.write_to(&mut bytes).unwrap();
        assert_eq!(BitCodes::read_from(&bytes[..]).unwrap(), c);
    }

    #[test]
    fn projections_threshold_strictly_above_zero() {
        let p = faer::mat![[0.5, 0.0, -1.0]];
        let c = BitCodes::from_projections(p.as_ref());
        assert_eq!(c.code(0), &[0b001]);
    }

    #[test]
    fn binary_layout_round_trips_and_rejects_truncation() {
        let c = BitCodes::from_fn(5, 100, |i, j| (i * 7 + j * 3) % 5 == 0);
        let mut buf = Vec::new();
        c.write_to(&mut buf).unwrap();
        assert_eq!(buf.len(), 8 + 8 + 4 + 4 + 5 * 2 * 8);
        assert_eq!(BitCodes::read_from(&buf[..]).unwrap(), c);
        let err = BitCodes::read_from(&buf[..buf.len() - 3]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn flipping_twice_restores_the_codes() {
        let c = BitCodes::from_fn(4, 12, |i, j| (i + j) % 3 == 0);
        let mut d = c.clone();
        d.flip_bit_everywhere(7);
        assert_ne!(c, d);
        d.flip_bit_everywhere(7);
        assert_eq!(c, d);
    }
}
