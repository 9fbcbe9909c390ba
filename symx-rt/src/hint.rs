//! `symx::hint`: the spin-loop hint, a scheduling point where a spinning thread gives way.

/// Tells the scheduler this thread is spinning: other threads run before it is scheduled again.
#[track_caller]
pub fn spin_loop() {
    crate::rt::visible(
        crate::rt::OpKind::Yield,
        None,
        std::panic::Location::caller(),
    );
    std::hint::spin_loop();
}
