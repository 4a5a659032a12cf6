//! JSON text byte-identical to Python's `json.dumps(v, indent=2, sort_keys=True) + "\n"`.
//!
//! The original recipe writes `usage.json` with that call. Writing the same bytes
//! means a receipt can be touched by the recipe's script and by this tool in any
//! order without a spurious diff. Keys are sorted by serde_json's `Map` (a
//! `BTreeMap`: UTF-8 byte order equals Python's code point order); this module
//! adds Python's `ensure_ascii` escapes and its float spelling.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};

/// Serializes `value` as Python's `json.dumps(value, indent=2, sort_keys=True)` does, plus `"\n"`.
pub fn to_string(value: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(1024);
    let mut ser = Serializer::with_formatter(&mut out, PyFormatter::default());
    value
        .serialize(&mut ser)
        .expect("serializing a Value into memory cannot fail");
    out.push(b'\n');
    String::from_utf8(out).expect("the formatter writes ASCII only")
}

struct PyFormatter {
    pretty: PrettyFormatter<'static>,
}

impl Default for PyFormatter {
    fn default() -> Self {
        PyFormatter {
            pretty: PrettyFormatter::with_indent(b"  "),
        }
    }
}

impl Formatter for PyFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.pretty.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.pretty.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.pretty.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.pretty.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.pretty.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.pretty.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.pretty.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.pretty.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.pretty.end_object_value(w)
    }

    /// `ensure_ascii`: everything outside printable ASCII becomes `\uXXXX`
    /// (surrogate pairs above U+FFFF), DEL included.
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        for c in fragment.chars() {
            if (' '..='~').contains(&c) {
                w.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(w, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }

    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(python_float_repr(value).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(w, f64::from(value))
    }
}

/// Python's `repr(float)`: the shortest round-trip digits, fixed notation when the
/// decimal exponent is in [-4, 16), else `d.ddde+XX` with at least two exponent digits.
pub(crate) fn python_float_repr(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    // `{:e}` gives the shortest round-trip digits, e.g. "1.5e-7" or "-1e16".
    let sci = format!("{value:e}");
    let (mantissa, exp) = sci
        .split_once('e')
        .expect("LowerExp always writes an exponent");
    let exp: i32 = exp.parse().expect("LowerExp writes an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decpt = exp + 1; // digits d1 d2 ... with the point after `decpt` of them
    if (-4 < decpt) && (decpt <= 16) {
        let n = digits.len() as i32;
        let body = if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
        } else {
            format!(
                "{}.{}",
                &digits[..decpt as usize],
                &digits[decpt as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_are_spelled_as_python_spells_them() {
        for (v, py) in [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789.125, "123456789.125"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
            (-2.5e300, "-2.5e+300"),
            (12345678901234567.0, "1.2345678901234568e+16"),
        ] {
            assert_eq!(python_float_repr(v), py, "{v}");
        }
    }

    #[test]
    fn layout_matches_json_dumps_indent_2_sort_keys() {
        let v = json!({"b": [1, 2, {}], "a": {"z": null, "y": []}, "c": "é\u{1F600}\u{7f}\"\\\n"});
        let expected = "{\n  \"a\": {\n    \"y\": [],\n    \"z\": null\n  },\n  \"b\": [\n    1,\n    2,\n    {}\n  ],\n  \"c\": \"\\u00e9\\ud83d\\ude00\\u007f\\\"\\\\\\n\"\n}\n";
        assert_eq!(to_string(&v), expected);
    }
}
