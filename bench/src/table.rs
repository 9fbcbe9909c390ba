//! Turning measured cells into the printed tables: number and time formats, the wording of
//! the result column, and aligned Markdown (so the output pastes into BENCHMARKS.md as is).

use std::time::Duration;

use crate::measure::End;
use crate::runner::{Cell, Summary};
use crate::scenarios::{Scenario, Tool};

/// Runs shorter than this are dominated by set-up, not throughput; their rate gets a `*`.
const SHORT_RUN_SECS: f64 = 0.005;

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seconds with about three significant digits: `0.18 ms`, `380.3 ms`, `7.79 s`, `164 s`.
pub fn duration(secs: f64) -> String {
    if secs < 0.01 {
        format!("{:.2} ms", secs * 1e3)
    } else if secs < 1.0 {
        format!("{:.1} ms", secs * 1e3)
    } else if secs < 100.0 {
        format!("{secs:.2} s")
    } else {
        format!("{secs:.0} s")
    }
}

fn rate(executions: u64, secs: f64) -> String {
    if secs <= 0.0 {
        return "—".to_string();
    }
    let r = thousands((executions as f64 / secs).round() as u64);
    if secs < SHORT_RUN_SECS {
        format!("{r}*")
    } else {
        r
    }
}

/// Aligned Markdown table.
pub fn markdown(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(headers.iter().map(|h| h.to_string()).collect());
    out += &line(widths.iter().map(|w| "-".repeat(*w)).collect());
    for row in rows {
        out += &line(row.clone());
    }
    out
}

/// The `--filter`ed, per scenario × tool table: one row per cell.
pub fn main_table(cells: &[Cell], time_limit: Duration) -> String {
    let rows: Vec<Vec<String>> = cells.iter().map(|c| row(c, time_limit)).collect();
    markdown(
        &[
            "Scenario",
            "Tool",
            "Executions",
            "Wall time (median)",
            "Executions/s",
            "Result",
        ],
        &rows,
    )
}

fn row(cell: &Cell, time_limit: Duration) -> Vec<String> {
    let (executions, wall, per_sec) = match &cell.summary {
        Summary::Done {
            executions, secs, ..
        } => (
            thousands(*executions),
            duration(*secs),
            rate(*executions, *secs),
        ),
        Summary::Timeout { executions, secs } => (
            executions.map_or("?".to_string(), |e| format!("≥ {}", thousands(e))),
            format!("≥ {}", duration(*secs)),
            executions.map_or("—".to_string(), |e| rate(e, *secs)),
        ),
        Summary::Crashed { .. } => ("—".into(), "—".into(), "—".into()),
    };
    vec![
        cell.scenario.to_string(),
        cell.tool.name().to_string(),
        executions,
        wall,
        per_sec,
        result(cell, time_limit),
    ]
}

/// The result column: did the tool finish, and did it (correctly) report the bug.
fn result(cell: &Cell, time_limit: Duration) -> String {
    let limit = duration(time_limit.as_secs_f64());
    let bug = cell.scenario.has_bug();
    match &cell.summary {
        Summary::Crashed { why } => format!("error: {why}"),
        Summary::Timeout { .. } if bug => format!("timeout (> {limit}), bug not found"),
        Summary::Timeout { .. } => format!("timeout (> {limit}), incomplete"),
        Summary::Done { found, end, .. } if found.is_empty() => match (bug, end) {
            (false, End::Iterations) => "no bug, iterations done (sampling)".to_string(),
            (false, _) => "no bug, complete".to_string(),
            (true, End::Iterations) => "bug MISSED in all iterations".to_string(),
            (true, _) => "bug MISSED, space exhausted".to_string(),
        },
        Summary::Done { found, post, .. } => {
            let what = &found[0].what;
            let at = found_at(cell);
            // Work the tool did after detection, before it returned (not in the other columns).
            let after = if post.executions > 0 {
                format!(
                    "; then {} executions ({}) minimising",
                    thousands(post.executions),
                    duration(post.secs)
                )
            } else {
                String::new()
            };
            if bug {
                format!("found at execution {at}: {what}{after}")
            } else {
                format!("FALSE ALARM at execution {at}: {what}{after}")
            }
        }
    }
}

/// Where the bug was found: one index, or for seeds that differ the median and range.
fn found_at(cell: &Cell) -> String {
    let Summary::Done { found, .. } = &cell.summary else {
        return String::new();
    };
    let mut at: Vec<u64> = found.iter().map(|b| b.at).collect();
    at.sort_unstable();
    let (min, max) = (at[0], at[at.len() - 1]);
    let median = crate::runner::median_u64(at.clone());
    let mut s = if min == max {
        thousands(min)
    } else {
        format!(
            "{} (median, range {}–{})",
            thousands(median),
            thousands(min),
            thousands(max)
        )
    };
    if found.len() < cell.runs {
        s += &format!(", in {}/{} runs", found.len(), cell.runs);
    }
    s
}

/// Scenario × tool at a glance: executions (or the execution that found the bug) / wall time.
pub fn matrix(cells: &[Cell], scenarios: &[Scenario], tools: &[Tool]) -> String {
    let headers: Vec<&str> = std::iter::once("Scenario")
        .chain(tools.iter().map(|t| t.name()))
        .collect();
    let rows: Vec<Vec<String>> = scenarios
        .iter()
        .map(|s| {
            std::iter::once(s.to_string())
                .chain(tools.iter().map(|t| {
                    cells
                        .iter()
                        .find(|c| c.scenario == *s && c.tool == *t)
                        .map_or("".to_string(), glance)
                }))
                .collect()
        })
        .collect();
    markdown(&headers, &rows)
}

fn glance(cell: &Cell) -> String {
    match &cell.summary {
        Summary::Crashed { .. } => "error".to_string(),
        Summary::Timeout { executions, secs } => match executions {
            Some(e) => format!("≥{} / timeout", thousands(*e)),
            None => format!("timeout ({})", duration(*secs)),
        },
        Summary::Done {
            executions,
            secs,
            found,
            ..
        } => {
            let n = if found.is_empty() {
                thousands(*executions)
            } else if cell.scenario.has_bug() {
                format!("bug@{}", thousands(*executions))
            } else {
                format!("ALARM@{}", thousands(*executions))
            };
            format!("{n} / {}", duration(*secs))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(27_109_656), "27,109,656");
        assert_eq!(duration(0.00018), "0.18 ms");
        assert_eq!(duration(0.3803), "380.3 ms");
        assert_eq!(duration(7.79), "7.79 s");
        assert_eq!(duration(164.2), "164 s");
        assert_eq!(rate(1000, 0.003), "333,333*");
    }

    #[test]
    fn markdown_is_aligned() {
        let t = markdown(&["a", "bb"], &[vec!["ccc".into(), "d".into()]]);
        assert_eq!(t, "| a   | bb |\n| --- | -- |\n| ccc | d  |\n");
    }
}
