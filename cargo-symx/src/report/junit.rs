//! `--format junit`: one test suite per test binary (`package::target`), one test case per
//! test; bugs are `<failure>` with the kind as type, crashes and timeouts `<error>`, known bugs
//! (`expect`) pass with the kind in a property. What a verdict rests on is in properties
//! (`symx.strategy`, `symx.executions`, `symx.complete`, `symx.memory_model`,
//! `symx.preemption_bound`); a test's warnings are properties (`symx.warning.<code>`) and its
//! `system-err`.

use std::collections::BTreeMap;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::report::outcome::{Outcome, Status};

pub fn render(outcomes: &[Outcome]) -> Result<String, String> {
    let mut suites: BTreeMap<String, TestSuite> = BTreeMap::new();
    for o in outcomes {
        let suite_name = format!("{}::{}", o.package, o.target);
        let suite = suites
            .entry(suite_name.clone())
            .or_insert_with(|| TestSuite::new(suite_name));
        suite.add_test_case(case(o));
    }
    let mut report = Report::new("cargo-symx");
    report.add_test_suites(suites.into_values());
    report
        .to_string()
        .map_err(|e| format!("cannot write the JUnit report: {e}"))
}

fn case(o: &Outcome) -> TestCase {
    let status = match o.status {
        Status::Passed | Status::ExpectedFailure => TestCaseStatus::success(),
        Status::Ignored | Status::Interrupted => TestCaseStatus::skipped(),
        Status::Crashed | Status::TimedOut | Status::Error => {
            TestCaseStatus::non_success(NonSuccessKind::Error)
        }
        Status::Failed | Status::UnexpectedPass => {
            TestCaseStatus::non_success(NonSuccessKind::Failure)
        }
    };
    let mut case = TestCase::new(o.name.clone(), status);
    case.set_classname(format!("{}::{}", o.package, o.target));
    case.set_time(o.duration);
    if let Some(s) = &o.strategy {
        case.add_property(Property::new("symx.strategy", s.clone()));
    }
    if let Some(n) = o.executions {
        case.add_property(Property::new("symx.executions", n.to_string()));
    }
    if let Some(c) = o.complete {
        case.add_property(Property::new("symx.complete", c.to_string()));
    }
    if let Some(m) = &o.memory_model {
        case.add_property(Property::new("symx.memory_model", m.clone()));
    }
    if let Some(b) = o.preemption_bound {
        case.add_property(Property::new("symx.preemption_bound", b.to_string()));
    }
    for w in &o.warnings {
        case.add_property(Property::new(
            format!("symx.warning.{}", w.code),
            w.message.clone(),
        ));
    }
    if !o.warnings.is_empty() {
        let lines: Vec<String> = o
            .warnings
            .iter()
            .map(|w| format!("warning[{}]: {}", w.code, w.message))
            .collect();
        case.set_system_err(lines.join("\n"));
    }
    let mut numbers: Vec<(&str, String)> = Vec::new();
    if let Some(p) = &o.predict {
        numbers.push(("symx.predict.confirmed", p.confirmed.to_string()));
        numbers.push(("symx.predict.unconfirmed", p.unconfirmed.to_string()));
    }
    if let Some(s) = &o.symbolic {
        numbers.push(("symx.symbolic.classes", s.classes.to_string()));
        numbers.push(("symx.symbolic.complete", s.complete.to_string()));
    }
    for (name, value) in numbers {
        case.add_property(Property::new(name, value));
    }
    if let Some(f) = &o.failure {
        case.add_property(Property::new("symx.kind", f.kind.clone()));
        for (name, value) in &f.inputs {
            case.add_property(Property::new(
                format!("symx.input.{name}"),
                value.to_string(),
            ));
        }
        if let Some(t) = &f.token {
            case.add_property(Property::new("symx.token", t.clone()));
        }
        if o.status.is_bug() || o.status == Status::Error {
            describe(&mut case, o);
        }
    }
    case
}

fn describe(case: &mut TestCase, o: &Outcome) {
    let f = o.failure.as_ref().expect("a failure");
    let style = crate::report::style::Style { color: false };
    let mut text = crate::report::human::finding(f, style);
    if !o.output.is_empty() {
        text.push_str("\noutput:\n");
        text.push_str(&o.output);
    }
    if let TestCaseStatus::NonSuccess {
        message,
        ty,
        description,
        ..
    } = &mut case.status
    {
        *message = Some(if f.predicted {
            format!("{} ({})", f.message, super::predicted::MARK).into()
        } else {
            f.message.clone().into()
        });
        *ty = Some(f.kind.clone().into());
        *description = Some(text.into());
    }
}
