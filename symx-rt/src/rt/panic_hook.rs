//! Panics inside model threads: the process-wide panic hook that captures their message and
//! location for the failure report (instead of printing them), and hands every other panic to
//! the hook that was installed before ours.

use std::cell::RefCell;
use std::sync::Once;

use super::execution::in_model;

/// The message and `file:line:col` of the last panic of a model thread on this OS thread.
#[derive(Clone, Debug)]
pub(crate) struct PanicInfo {
    pub message: String,
    pub location: Option<crate::report::step::SourceLocation>,
}

thread_local! {
    static LAST: RefCell<Option<PanicInfo>> = const { RefCell::new(None) };
    /// A panic symx raises on purpose and catches at once (see [`quietly`]).
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(crate) fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(|q| q.get()) {
                return;
            }
            if !in_model() {
                return previous(info);
            }
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "Box<dyn Any>".to_string());
            let location = info
                .location()
                .map(|l| crate::report::step::SourceLocation {
                    file: l.file().to_string(),
                    line: l.line(),
                    column: l.column(),
                });
            // A panic during unwinding aborts the process anyway; keep the first message.
            LAST.with(|last| {
                if let Ok(mut last) = last.try_borrow_mut() {
                    last.get_or_insert(PanicInfo { message, location });
                }
            });
        }));
    });
}

/// Takes the captured panic of the current model thread.
pub(crate) fn take() -> Option<PanicInfo> {
    LAST.with(|last| last.borrow_mut().take())
}

/// Runs `f`, whose panics are caught by the caller and are neither printed nor taken for a
/// model thread's failure (a probe of how this build behaves, such as overflow checks).
pub(crate) fn quietly<R>(f: impl FnOnce() -> R) -> R {
    install();
    let was = QUIET.with(|q| q.replace(true));
    let r = f();
    QUIET.with(|q| q.set(was));
    r
}
