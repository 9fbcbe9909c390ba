//! [`TicketLock`]: a fair spin lock that serves threads in the order they arrived.

use symx::sync::atomic::{AtomicUsize, Ordering};

/// A ticket lock: `lock` draws the next ticket and waits until it is served; `unlock` serves
/// the next ticket. Threads get the lock first come, first served.
#[derive(Debug, Default)]
pub struct TicketLock {
    next_ticket: AtomicUsize,
    now_serving: AtomicUsize,
}

impl TicketLock {
    /// An unlocked lock.
    pub const fn new() -> Self {
        TicketLock {
            next_ticket: AtomicUsize::new(0),
            now_serving: AtomicUsize::new(0),
        }
    }

    /// Draws a ticket and spins until it is served.
    #[symx::acquire]
    pub fn lock(&self) {
        // One atomic read-modify-write, so no two threads can draw the same ticket. It only
        // hands out numbers and publishes nothing, so `Relaxed` is enough.
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        // `Acquire`: pairs with the `Release` in `unlock`, so the previous holder's critical
        // section happens before ours.
        while is_ahead(ticket, self.now_serving.load(Ordering::Acquire)) {
            symx::hint::spin_loop();
        }
    }

    /// Takes the lock if nobody holds it or waits for it; `true` when this thread now holds it.
    #[symx::try_acquire]
    pub fn try_lock(&self) -> bool {
        // `Acquire`: if the lock turns out free, the last `unlock` (which wrote this value)
        // happens before our critical section.
        let serving = self.now_serving.load(Ordering::Acquire);
        // Free means no ticket beyond `serving` was drawn. Drawing ticket `serving` only if
        // that still holds makes it ours, already being served. `now_serving` cannot have moved
        // on meanwhile: that would take a holder, whose ticket makes the exchange fail.
        self.next_ticket
            .compare_exchange(
                serving,
                serving.wrapping_add(1),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// Serves the next ticket; the calling thread must hold the lock.
    #[symx::release]
    pub fn unlock(&self) {
        // `Release`: publishes this critical section to the next holder's `Acquire` load.
        self.now_serving.fetch_add(1, Ordering::Release);
    }
}

/// Whether `ticket` is still ahead of `serving`, i.e. its turn has not come yet, counting
/// around the wrap of `usize` (valid while fewer than `isize::MAX` threads wait).
///
/// Waiting while ahead rather than until `serving == ticket` is the same thing in a correct
/// ticket lock, where no ticket is ever passed over. It differs only if one is: then its
/// thread goes ahead instead of spinning forever. For a checker that matters, since a
/// broken ticket counter then surfaces as two threads holding the lock, which the annotations
/// report as such, rather than as a hang that only a step bound can tell from slowness.
pub(crate) fn is_ahead(ticket: usize, serving: usize) -> bool {
    (ticket.wrapping_sub(serving) as isize) > 0
}
