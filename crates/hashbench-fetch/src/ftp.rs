//! Anonymous FTP downloads (the INRIA TEXMEX corpus of SIFT and GIST sets is
//! served over FTP only): passive mode, binary type, `REST` to resume a
//! partial file, RFC 959's reply codes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};

/// A control connection.
struct Control {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Control {
    /// Reads one (possibly multi-line) reply: its code and text.
    fn reply(&mut self) -> Result<(u16, String), String> {
        let mut text = String::new();
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        text.push_str(&line);
        let code: u16 = line
            .get(..3)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("not an FTP reply: {}", line.trim()))?;
        if line.as_bytes().get(3) == Some(&b'-') {
            // multi-line: until "<code> "
            loop {
                line.clear();
                if self
                    .reader
                    .read_line(&mut line)
                    .map_err(|e| e.to_string())?
                    == 0
                {
                    return Err("the server closed the control connection".into());
                }
                text.push_str(&line);
                if line.starts_with(&format!("{code} ")) {
                    break;
                }
            }
        }
        Ok((code, text.trim().to_string()))
    }

    /// Sends `command` and reads the reply; a code outside `ok` is an error
    /// naming the command (never the password).
    fn command(&mut self, command: &str, ok: &[u16]) -> Result<(u16, String), String> {
        self.writer
            .write_all(format!("{command}\r\n").as_bytes())
            .map_err(|e| e.to_string())?;
        let (code, text) = self.reply()?;
        if ok.contains(&code) {
            Ok((code, text))
        } else {
            let shown = if command.starts_with("PASS") {
                "PASS"
            } else {
                command
            };
            Err(format!("{shown}: {text}"))
        }
    }
}

/// The host, port and path of an `ftp://` URL.
pub(crate) fn parse(url: &str) -> Option<(String, u16, String)> {
    let rest = url.strip_prefix("ftp://")?;
    let (authority, path) = rest.split_once('/')?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h.to_string(), p.parse().ok()?),
        None => (authority.to_string(), 21),
    };
    Some((host, port, format!("/{path}")))
}

/// The data address of a `227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)`
/// reply.
fn passive_address(reply: &str) -> Option<String> {
    let inner = reply.split('(').nth(1)?.split(')').next()?;
    let n: Vec<u16> = inner
        .split(',')
        .map(|v| v.trim().parse().ok())
        .collect::<Option<_>>()?;
    (n.len() == 6).then(|| format!("{}.{}.{}.{}:{}", n[0], n[1], n[2], n[3], n[4] * 256 + n[5]))
}

/// What an FTP transfer did.
pub(crate) struct Transfer {
    /// The file's size, when the server told it (`SIZE`).
    pub size: Option<u64>,
    /// Bytes read now.
    pub got: u64,
    /// Set when the data connection failed before the end.
    pub error: Option<String>,
}

/// Retrieves `url` from byte `offset` on, writing each block to `sink`.
pub(crate) fn retrieve(
    url: &str,
    offset: u64,
    sink: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<Transfer, String> {
    let (host, port, path) = parse(url).ok_or("not an ftp://host/path URL")?;
    let timeout = Some(crate::STALL);
    let stream = TcpStream::connect((host.as_str(), port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(timeout)
        .map_err(|e| e.to_string())?;
    let mut control = Control {
        reader: BufReader::new(stream.try_clone().map_err(|e| e.to_string())?),
        writer: stream,
    };
    let (code, text) = control.reply()?;
    if code != 220 {
        return Err(text);
    }
    let (code, _) = control.command("USER anonymous", &[230, 331])?;
    if code == 331 {
        control.command("PASS anonymous@", &[230])?;
    }
    control.command("TYPE I", &[200])?;
    let size = control
        .command(&format!("SIZE {path}"), &[213])
        .ok()
        .and_then(|(_, t)| t.split_whitespace().nth(1)?.parse().ok());
    let (_, pasv) = control.command("PASV", &[227])?;
    let address = passive_address(&pasv).ok_or_else(|| format!("PASV: {pasv}"))?;
    let mut data = TcpStream::connect(&address).map_err(|e| format!("{address}: {e}"))?;
    data.set_read_timeout(timeout).map_err(|e| e.to_string())?;
    if offset > 0 {
        control.command(&format!("REST {offset}"), &[350])?;
    }
    control.command(&format!("RETR {path}"), &[125, 150])?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut got, mut error) = (0u64, None);
    loop {
        match data.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                sink(&buf[..n]).map_err(|e| e.to_string())?;
                got += n as u64;
            }
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    let _ = data.shutdown(Shutdown::Both);
    if error.is_none() {
        match control.reply() {
            Ok((226 | 250, _)) => {}
            Ok((_, text)) => error = Some(text),
            Err(e) => error = Some(e),
        }
    }
    let _ = control.command("QUIT", &[221]);
    Ok(Transfer { size, got, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_passive_replies_parse() {
        assert_eq!(
            parse("ftp://ftp.irisa.fr/local/texmex/corpus/sift.tar.gz"),
            Some((
                "ftp.irisa.fr".into(),
                21,
                "/local/texmex/corpus/sift.tar.gz".into()
            ))
        );
        assert_eq!(
            parse("ftp://127.0.0.1:2121/a.gz"),
            Some(("127.0.0.1".into(), 2121, "/a.gz".into()))
        );
        assert_eq!(parse("http://x/a"), None);
        assert_eq!(
            passive_address("227 Entering Passive Mode (127,0,0,1,19,137)."),
            Some("127.0.0.1:5001".into())
        );
        assert_eq!(passive_address("227 nonsense"), None);
    }
}
