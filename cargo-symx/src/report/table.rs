//! Plain-text tables with aligned columns (no colour inside cells, so widths stay true).

/// Renders `rows` under `header`, columns separated by two spaces, cells cut at `max_width`.
pub fn render(header: &[String], rows: &[Vec<String>], max_width: usize) -> String {
    let cut = |s: &str| -> String {
        if s.chars().count() > max_width {
            let kept: String = s.chars().take(max_width.saturating_sub(1)).collect();
            format!("{kept}…")
        } else {
            s.to_string()
        }
    };
    let cells: Vec<Vec<String>> = std::iter::once(header.to_vec())
        .chain(rows.iter().cloned())
        .map(|r| r.iter().map(|c| cut(c)).collect())
        .collect();
    let columns = header.len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            cells
                .iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, row) in cells.iter().enumerate() {
        let line: Vec<String> = (0..columns)
            .map(|c| {
                let cell = row.get(c).map_or("", String::as_str);
                format!("{cell:<w$}", w = widths[c])
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_align_and_long_cells_are_cut() {
        let header = vec!["a".to_string(), "bb".to_string()];
        let rows = vec![vec!["xxx".to_string(), "y".repeat(50)]];
        let text = super::render(&header, &rows, 10);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "a    bb");
        assert_eq!(lines[1], "---  ----------");
        assert_eq!(lines[2], format!("xxx  {}…", "y".repeat(9)));
    }
}
