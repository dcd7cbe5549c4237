//! The shape of one program's flag table and the one loop that checks a
//! command's words against it: which options are refused and why, which
//! take the next word as their value, and what the operands may be.
//!
//! The tables themselves live in [`super::flags`]. Each field states one
//! way the program parses its words, so the loop never has to know a
//! program's name; where a program's own parser differs from GNU getopt
//! (`tree`), or the table is stricter than the program (`date`), the field
//! says so.

use super::{long_option_is, no_dynamic_options, short_cluster};
use crate::permissions::shell::words::{Word, has_brace_expansion, has_glob};

/// How one program's words are judged. `why` texts may name the word with
/// `{word}`.
pub(super) struct FlagTable {
    /// The program's names (`fd` is `fdfind` on Debian).
    pub names: &'static [&'static str],
    /// Which words only known at run time are refused.
    pub dynamic: Dynamic,
    /// Long options refused: the full name, the shortest abbreviation
    /// GNU getopt takes for it, and why.
    pub refused_long: &'static [(&'static str, usize, &'static str)],
    /// Short option letters refused, and why.
    pub refused_letters: &'static [(char, &'static str)],
    /// How short option letters that take a value find it.
    pub value_letters: ValueLetters,
    /// Whole words whose value is the next word (`--sort NAME`, `-d DATE`,
    /// xxd's one-dash `-cols N`).
    pub value_words: &'static [&'static str],
    /// True when `--` ends the options: every later word is an operand.
    /// False means later words are still judged as options (stricter).
    pub double_dash_ends_options: bool,
    /// What the operands (words that are neither options nor their values)
    /// may be.
    pub operands: Operands,
}

/// Words only known at run time.
pub(super) enum Dynamic {
    /// Refused before a `--`: GNU tools take options anywhere.
    BeforeDoubleDash,
    /// Refused anywhere, with this reason (`{word}` names the word).
    Anywhere(&'static str),
}

/// Short option letters that take a value, and where the value is.
pub(super) enum ValueLetters {
    /// None: letters are flags only.
    None,
    /// GNU getopt: the first value letter ends the cluster; its value is
    /// the rest of the cluster, or the next word when the letter is last.
    /// Letters after it are part of the value, so they are not judged.
    Getopt(&'static [char]),
    /// Every letter of the cluster is judged, and the next word is a value
    /// when the cluster ends with a value letter (`tree -aL 2`).
    Last(&'static [char]),
}

/// What the operands may be.
pub(super) enum Operands {
    /// Anything: the program only reads them.
    Any,
    /// Only words starting with this character (`date +%s`); any other
    /// operand is refused for this reason (`{word}` names it).
    StartingWith(char, &'static str),
    /// At most one, known before the command runs: a second operand is a
    /// file the program writes (`uniq IN OUT`, `xxd IN OUT`).
    OneInput,
}

/// Checks `args` (the words after the program's name) against `table`.
pub(super) fn check_table(table: &FlagTable, args: &[Word]) -> Result<(), String> {
    let program = table.names.first().copied().unwrap_or_default();
    match table.dynamic {
        Dynamic::BeforeDoubleDash => no_dynamic_options(program, args)?,
        Dynamic::Anywhere(why) => {
            if let Some(w) = args.iter().find(|w| w.dynamic) {
                return Err(why.replace("{word}", &w.text));
            }
        }
    }
    let mut operands = Vec::new();
    let mut only_operands = false;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if only_operands || t == "-" || !t.starts_with('-') {
            operand(table, w, &mut operands)?;
        } else if t == "--" && table.double_dash_ends_options {
            only_operands = true;
        } else {
            skip_next = option(table, t)?;
        }
    }
    if let Operands::OneInput = table.operands {
        one_input(program, &operands)?;
    }
    Ok(())
}

/// Judges one operand; keeps it when the table counts them.
fn operand<'a>(table: &FlagTable, w: &'a Word, kept: &mut Vec<&'a Word>) -> Result<(), String> {
    match table.operands {
        Operands::Any => Ok(()),
        Operands::StartingWith(first, why) if !w.text.starts_with(first) => {
            Err(why.replace("{word}", &w.text))
        }
        Operands::StartingWith(..) => Ok(()),
        Operands::OneInput => {
            kept.push(w);
            Ok(())
        }
    }
}

/// Judges one option word; true when the next word is its value.
fn option(table: &FlagTable, t: &str) -> Result<bool, String> {
    let refuse = |why: &str| Err(why.replace("{word}", t));
    for (full, min, why) in table.refused_long {
        if long_option_is(t, full, *min) {
            return refuse(why);
        }
    }
    let mut takes_value = false;
    if let Some(cluster) = short_cluster(t) {
        for (idx, c) in cluster.char_indices() {
            if let Some((_, why)) = table.refused_letters.iter().find(|(l, _)| *l == c) {
                return refuse(why);
            }
            if let ValueLetters::Getopt(letters) = table.value_letters
                && letters.contains(&c)
            {
                takes_value = idx + 1 == cluster.len();
                break;
            }
        }
        if let ValueLetters::Last(letters) = table.value_letters {
            takes_value = cluster.ends_with(letters);
        }
    }
    Ok(takes_value || table.value_words.contains(&t))
}

/// The operands of a program whose second operand is an output file. An
/// operand the shell expands (a glob, braces, a variable) may become
/// several words, the second of which would be written, so it is refused.
fn one_input(program: &str, operands: &[&Word]) -> Result<(), String> {
    if let Some(w) = operands
        .iter()
        .find(|w| w.dynamic || has_glob(&w.text) || has_brace_expansion(&w.text))
    {
        return Err(format!(
            "`{program} {}` may expand to several files, and `{program}` writes to the second",
            w.text
        ));
    }
    if operands.len() > 1 {
        return Err(format!(
            "`{program}` with a second file operand writes to that file"
        ));
    }
    Ok(())
}
