//! What the code after a moved operation may change ([`Access::Touches`]): the accesses it
//! conflicts with, and how an event of a wakeup sequence comes to carry it and loses it.

use super::{Access, Ev};

impl Access {
    /// Whether the code between two operations can change the access's object (an `Arc`'s
    /// count, a channel, a `Once`: see `Touch`), so that it conflicts with [`Access::Touches`]:
    /// not an atomic, a lock or a barrier, which only operations change.
    pub const fn touchable(self) -> bool {
        !matches!(
            self,
            Access::None
                | Access::Read(_)
                | Access::Write(_)
                | Access::Lock(_)
                | Access::TryLock(_)
                | Access::TryLockOk(_)
                | Access::Shared(_)
                | Access::Unlock(_)
                | Access::UnlockShared(_)
                | Access::CountDown(..)
        )
    }
}

impl Ev {
    /// Whether its step's code after the operation may change what it did not where it ran
    /// ([`Access::Touches`]).
    pub fn touches_unknown(&self) -> bool {
        self.accesses.contains(&Access::Touches)
    }

    /// Takes its step's code after the operation to change anything such code can
    /// ([`Access::Touches`]), besides what it changed where it ran.
    pub fn touches_anything(&mut self) {
        if !self.touches_unknown() {
            self.accesses.push(Access::Touches);
            if !self.exact.is_empty() {
                self.exact.push(Access::Touches);
            }
        }
    }

    /// Drops [`Access::Touches`] once its step ran and what its code changed is known (to be
    /// added by the caller); whether it had it.
    pub fn touches_known(&mut self) -> bool {
        let had = self.touches_unknown();
        if had {
            self.accesses.retain(|a| *a != Access::Touches);
            self.exact.retain(|a| *a != Access::Touches);
        }
        had
    }
}
