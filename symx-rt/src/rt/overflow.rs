//! Stack overflows of model threads. Each coroutine stack has a guard page below it; a thread
//! that runs past its stack faults there, which would otherwise kill the test process with a
//! bare SIGSEGV. A SIGSEGV handler, running on the OS thread's alternate signal stack (the
//! faulting stack has no room left), recognises a fault whose address lies in the stack of the
//! coroutine being resumed, and uses corosensei's trap handler to make that coroutine return
//! at once with its stack reset; the scheduler then reports the thread as overflowed. Every
//! other fault goes to the handler that was installed before (std's, which reports overflows of
//! OS threads). Only where the handler knows the register layout (Linux on x86_64 and
//! aarch64); elsewhere an overflow still kills the process.
//!
//! What the thread left on its stack is abandoned (never dropped), as for any thread of a
//! failed execution (see `Scheduler::teardown`).

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};

type Co = Coroutine<(), (), (), DefaultStack>;

/// Resumes `co`; `true` in the second place when it returned because it overflowed its stack.
pub(crate) fn resume(co: &mut Co) -> (CoroutineResult<(), ()>, bool) {
    imp::resume(co)
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod imp {
    use std::cell::Cell;
    use std::sync::{Once, OnceLock};

    use corosensei::trap::CoroutineTrapHandler;
    use corosensei::CoroutineResult;

    use super::Co;

    thread_local! {
        /// The coroutine being resumed on this OS thread, for the signal handler.
        static RUNNING: Cell<Option<CoroutineTrapHandler<()>>> = const { Cell::new(None) };
        /// Set on the coroutine's reset stack when the handler made it return.
        static OVERFLOWED: Cell<bool> = const { Cell::new(false) };
        /// This OS thread has an alternate signal stack.
        static ALT_STACK: Cell<bool> = const { Cell::new(false) };
    }

    /// The SIGSEGV action before ours, to hand other faults to (reading it in the handler is
    /// an atomic load).
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    pub(super) fn resume(co: &mut Co) -> (CoroutineResult<(), ()>, bool) {
        install();
        RUNNING.with(|r| r.set(Some(co.trap_handler())));
        let result = co.resume(());
        RUNNING.with(|r| r.set(None));
        (result, OVERFLOWED.with(|o| o.replace(false)))
    }

    fn install() {
        static HANDLER: Once = Once::new();
        HANDLER.call_once(|| unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fault as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            // Set before ours is installed, so that the handler always finds it.
            libc::sigaction(libc::SIGSEGV, std::ptr::null(), &mut previous);
            let _ = PREVIOUS.set(previous);
            libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
        });
        if !ALT_STACK.with(|a| a.replace(true)) {
            unsafe { ensure_alt_stack() };
        }
    }

    /// std gives the threads it starts an alternate signal stack; a thread without one (started
    /// by other means) gets one here, leaked with the thread.
    unsafe fn ensure_alt_stack() {
        let mut current: libc::stack_t = unsafe { std::mem::zeroed() };
        if unsafe { libc::sigaltstack(std::ptr::null(), &mut current) } != 0
            || current.ss_flags & libc::SS_DISABLE == 0
        {
            return;
        }
        let size = 64 * 1024;
        let memory = Box::leak(vec![0u8; size].into_boxed_slice());
        let stack = libc::stack_t {
            ss_sp: memory.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: size,
        };
        unsafe { libc::sigaltstack(&stack, std::ptr::null_mut()) };
    }

    extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        let context = ctx.cast::<libc::ucontext_t>();
        // SAFETY: the kernel passes a valid siginfo and ucontext to an SA_SIGINFO handler.
        let (address, sp) = unsafe { ((*info).si_addr() as usize, stack_pointer(context)) };
        let running = RUNNING.with(|r| r.get());
        if let Some(trap) = running {
            // The guard page is part of the coroutine's bounds: a fault there with the stack
            // pointer inside is the coroutine running off its stack.
            if trap.stack_ptr_in_bounds(sp) && trap.stack_ptr_in_bounds(address) {
                // SAFETY: the stack pointer is in the interrupted coroutine (checked above) and
                // the registers are updated as the returned values say.
                unsafe {
                    let regs = trap.setup_trap_handler(|| OVERFLOWED.with(|o| o.set(true)));
                    redirect(context, regs);
                }
                return;
            }
        }
        unsafe { chain(PREVIOUS.get().copied(), sig, info, ctx) };
    }

    /// Hands the fault to the previous action: its handler, or (default) the fault again.
    unsafe fn chain(
        previous: Option<libc::sigaction>,
        sig: libc::c_int,
        info: *mut libc::siginfo_t,
        ctx: *mut libc::c_void,
    ) {
        match previous {
            Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
                if p.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        unsafe { std::mem::transmute(p.sa_sigaction) };
                    f(sig, info, ctx);
                } else {
                    let f: extern "C" fn(libc::c_int) =
                        unsafe { std::mem::transmute(p.sa_sigaction) };
                    f(sig);
                }
            }
            _ => {
                // Returning re-runs the faulting instruction, which now takes the default
                // action: the process ends as it would have without us.
                let mut default: libc::sigaction = unsafe { std::mem::zeroed() };
                default.sa_sigaction = libc::SIG_DFL;
                unsafe { libc::sigaction(sig, &default, std::ptr::null_mut()) };
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn stack_pointer(context: *mut libc::ucontext_t) -> usize {
        unsafe { (*context).uc_mcontext.gregs[libc::REG_RSP as usize] as usize }
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn redirect(context: *mut libc::ucontext_t, regs: corosensei::trap::TrapHandlerRegs) {
        let g = unsafe { &mut (*context).uc_mcontext.gregs };
        g[libc::REG_RIP as usize] = regs.rip as i64;
        g[libc::REG_RSP as usize] = regs.rsp as i64;
        g[libc::REG_RBP as usize] = regs.rbp as i64;
        g[libc::REG_RDI as usize] = regs.rdi as i64;
        g[libc::REG_RSI as usize] = regs.rsi as i64;
    }

    #[cfg(target_arch = "aarch64")]
    unsafe fn stack_pointer(context: *mut libc::ucontext_t) -> usize {
        unsafe { (*context).uc_mcontext.sp as usize }
    }

    #[cfg(target_arch = "aarch64")]
    unsafe fn redirect(context: *mut libc::ucontext_t, regs: corosensei::trap::TrapHandlerRegs) {
        let m = unsafe { &mut (*context).uc_mcontext };
        m.pc = regs.pc;
        m.sp = regs.sp;
        m.regs[0] = regs.x0;
        m.regs[1] = regs.x1;
        m.regs[29] = regs.x29;
        m.regs[30] = regs.lr;
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod imp {
    use corosensei::CoroutineResult;

    use super::Co;

    pub(super) fn resume(co: &mut Co) -> (CoroutineResult<(), ()>, bool) {
        (co.resume(()), false)
    }
}
