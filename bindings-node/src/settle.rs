//! A client call started on the JS thread and its Promise settled from the engine's runtime,
//! with as little crossing between threads as the call allows (issue 47 step 2, bench/NOTES.md
//! "A client writes its request from the calling thread").
//!
//! [`start_here`] polls the call once on the JS thread, inside the runtime's context: the core
//! writes the request to a child's stdin in place (`mcpcore::transport::direct`). What is left
//! is parked, not spawned: napi-rs's `spawn_future` would wake a runtime worker at once only for
//! it to register the same wake-ups and sleep again. The first wake-up (the answer arriving, on
//! the thread that read it; a timer; a cancellation) spawns it there, from where it runs to its
//! end. Its outcome then goes into this JS thread's queue, and one thread-safe function, made
//! once per JS thread, asks the JS thread to settle every queued Promise: where napi-rs's
//! deferred makes, and releases, a thread-safe function for every call. The thread-safe function
//! keeps the event loop alive only while calls are in flight, as each call's own did.

use crate::handler::on_js_thread;
use futures_util::FutureExt as _;
use mcpcore::registry::BoxFuture;
use napi::bindgen_prelude::{PromiseRaw, ToNapiValue};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{sys, Env, Status};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// Asks the JS thread to settle what is queued (weak: the event loop is kept alive by hand).
type SettleJs = ThreadsafeFunction<(), (), (), Status, false, true>;

/// Turns a call's outcome into the Promise's value, or its rejection, on the JS thread.
type Outcome = Box<dyn FnOnce(sys::napi_env) -> napi::Result<sys::napi_value> + Send>;

/// A Promise's resolving end, only ever used on its JS thread.
struct Deferred(sys::napi_deferred);
// SAFETY: the pointer is only passed to napi on the JS thread that made it (`drain`).
unsafe impl Send for Deferred {}

/// One JS thread's settled calls, and the function that has the JS thread settle them.
struct Queue {
    done: Mutex<Vec<(Deferred, Outcome)>>,
    settle: SettleJs,
}

impl Queue {
    /// Queues a call's outcome; the first of a batch asks the JS thread to settle, unless this
    /// is that JS thread feeding a child's stdout ([`feeding`] settles when it is done).
    fn push(&self, deferred: Deferred, outcome: Outcome) {
        let first = {
            let mut done = self.done.lock().unwrap_or_else(|p| p.into_inner());
            done.push((deferred, outcome));
            done.len() == 1
        };
        let settles_here = FEEDING.with(Cell::get)
            && LOCAL.with(|l| l.borrow().as_ref().is_some_and(|l| std::ptr::eq(&*l.queue, self)));
        if first && !settles_here {
            // Closing: the environment is being torn down; nobody awaits the Promise.
            let _ = self.settle.call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// The JS thread's side: its queue, and how many of its calls are in flight.
struct Local {
    queue: Arc<Queue>,
    in_flight: Cell<usize>,
}

thread_local! {
    /// This JS thread's queue (one Node environment per thread), made on its first call.
    static LOCAL: RefCell<Option<Rc<Local>>> = const { RefCell::new(None) };
    /// This JS thread is feeding a child's stdout ([`feeding`]): a parked call woken now is
    /// polled here when the chunk is dispatched, not spawned on the runtime.
    static FEEDING: Cell<bool> = const { Cell::new(false) };
    /// The parked calls woken while feeding, to poll here.
    static WOKEN: RefCell<Vec<(Arc<Parked>, BoxFuture<'static, ()>)>> = const { RefCell::new(Vec::new()) };
}

/// This JS thread's [`Local`], made on first use.
fn local(env: &Env) -> napi::Result<Rc<Local>> {
    if let Some(l) = LOCAL.with(|l| l.borrow().clone()) {
        return Ok(l);
    }
    let f = env.create_function_from_closure::<(), (), _>("mcpcoreSettle", |_| Ok(()))?;
    let settle: SettleJs = f.build_threadsafe_function::<()>().weak::<true>().build_callback(|ctx| {
        drain(&ctx.env);
        Ok(())
    })?;
    let l = Rc::new(Local {
        queue: Arc::new(Queue { done: Mutex::new(Vec::new()), settle }),
        in_flight: Cell::new(0),
    });
    LOCAL.with(|slot| *slot.borrow_mut() = Some(l.clone()));
    Ok(l)
}

/// Settles every queued call (on the JS thread); lets the event loop end once none is in flight.
fn drain(env: &Env) {
    let Some(l) = LOCAL.with(|l| l.borrow().clone()) else { return };
    let done = std::mem::take(&mut *l.queue.done.lock().unwrap_or_else(|p| p.into_inner()));
    let raw = env.raw();
    for (deferred, outcome) in done {
        // SAFETY: `deferred` came from `napi_create_promise` on this thread and is settled once.
        unsafe {
            match outcome(raw) {
                Ok(v) => sys::napi_resolve_deferred(raw, deferred.0, v),
                Err(e) => match ToNapiValue::to_napi_value(raw, e) {
                    Ok(e) => sys::napi_reject_deferred(raw, deferred.0, e),
                    Err(_) => sys::napi_reject_deferred(raw, deferred.0, std::ptr::null_mut()),
                },
            };
        }
        let left = l.in_flight.get().saturating_sub(1);
        l.in_flight.set(left);
        if left == 0 {
            // SAFETY: on the JS thread, with the function this thread made.
            unsafe { sys::napi_unref_threadsafe_function(raw, l.queue.settle.raw()) };
        }
    }
}

/// A call's future after its first poll: parked until something wakes it, then spawned on the
/// runtime from the thread that woke it.
struct Parked {
    state: Mutex<State>,
    runtime: tokio::runtime::Handle,
}

enum State {
    /// The first poll runs (on the JS thread); `woken` if a wake-up came meanwhile.
    First { woken: bool },
    /// Waiting for its first wake-up.
    Waiting(BoxFuture<'static, ()>),
    /// Spawned (or done): later wake-ups are the runtime's.
    Gone,
}

impl Wake for Parked {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match std::mem::replace(&mut *st, State::Gone) {
            State::First { .. } => *st = State::First { woken: true },
            State::Waiting(fut) => {
                drop(st);
                if FEEDING.with(Cell::get) {
                    WOKEN.with(|w| w.borrow_mut().push((self.clone(), fut)));
                } else {
                    self.runtime.spawn(fut);
                }
            }
            State::Gone => {}
        }
    }
}

/// Runs `dispatch` (a chunk of a child's stdout handed to the client, on the JS thread), then
/// polls here the calls it woke (their answers arrived in it) and settles their Promises at
/// once: no runtime thread wakes for them, and no turn of the event loop passes (issue 47 step
/// 2, bench/NOTES.md "A client reads its child's stdout on the JS thread"). A call still
/// waiting after that is parked again.
pub(crate) fn feeding(env: &Env, dispatch: impl FnOnce()) {
    /// Clears the flag when dropped (also when a panic unwinds).
    struct Feeding;
    impl Drop for Feeding {
        fn drop(&mut self) {
            FEEDING.with(|f| f.set(false));
        }
    }
    let _feeding = Feeding;
    FEEDING.with(|f| f.set(true));
    on_js_thread(env, dispatch);
    // Bounded: each round polls the calls the one before woke; a call keeps waking itself only
    // through the runtime past this many rounds.
    for _ in 0..64 {
        let woken = WOKEN.with(|w| std::mem::take(&mut *w.borrow_mut()));
        if woken.is_empty() {
            break;
        }
        for (parked, job) in woken {
            poll_here(env, parked, job);
        }
    }
    for (parked, job) in WOKEN.with(|w| std::mem::take(&mut *w.borrow_mut())) {
        *parked.state.lock().unwrap_or_else(|p| p.into_inner()) = State::Gone;
        parked.runtime.spawn(job);
    }
    drop(_feeding);
    drain(env);
}

/// Polls a woken call on the JS thread; parks it again if it still waits.
fn poll_here(env: &Env, parked: Arc<Parked>, mut job: BoxFuture<'static, ()>) {
    *parked.state.lock().unwrap_or_else(|p| p.into_inner()) = State::First { woken: false };
    let waker = Waker::from(parked.clone());
    let polled = on_js_thread(env, || {
        std::panic::catch_unwind(AssertUnwindSafe(|| job.as_mut().poll(&mut Context::from_waker(&waker))))
    });
    park_or_spawn(&parked, job, polled);
}

/// After a call's poll on the JS thread: done, parked until its next wake-up, or (woken while
/// it was polled) spawned on the runtime.
fn park_or_spawn(parked: &Arc<Parked>, job: BoxFuture<'static, ()>, polled: std::thread::Result<Poll<()>>) {
    match polled {
        // The outcome is queued (or the job panicked outside the caught future: not expected).
        Ok(Poll::Ready(())) | Err(_) => *parked.state.lock().unwrap_or_else(|p| p.into_inner()) = State::Gone,
        Ok(Poll::Pending) => {
            let mut st = parked.state.lock().unwrap_or_else(|p| p.into_inner());
            match *st {
                State::First { woken: true } => {
                    *st = State::Gone;
                    drop(st);
                    parked.runtime.spawn(job);
                }
                _ => *st = State::Waiting(job),
            }
        }
    }
}

/// Starts `fut` on the JS thread (`env`) and returns the Promise of its outcome: polled once
/// here, then parked until woken (see the module docs).
///
/// `after_callbacks`: the call also reaches JS through a thread-safe function of its own (a
/// progress callback), whose calls must come before the Promise settles. libuv runs the
/// thread-safe functions woken in one turn in the order they were made, and this thread's
/// queue was made before the callback's; such a call settles through napi-rs's deferred,
/// made after the callback, as before.
pub(crate) fn start_here<'env, T, F>(
    env: &'env Env,
    fut: F,
    after_callbacks: bool,
) -> napi::Result<PromiseRaw<'env, T>>
where
    T: ToNapiValue + Send + 'static,
    F: Future<Output = napi::Result<T>> + Send + 'static,
{
    if after_callbacks {
        return start_then_spawn(env, fut);
    }
    let Ok(runtime) = on_js_thread(env, tokio::runtime::Handle::try_current) else {
        return Err(napi::Error::from_reason("mcpcore's runtime is gone (the environment is closing)"));
    };
    let l = local(env)?;
    let mut deferred = std::ptr::null_mut();
    let mut promise = std::ptr::null_mut();
    // SAFETY: plain napi calls on the JS thread with its env.
    let status = unsafe { sys::napi_create_promise(env.raw(), &mut deferred, &mut promise) };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason("the call's Promise could not be made"));
    }
    if l.in_flight.get() == 0 {
        // SAFETY: on the JS thread, with the function this thread made.
        unsafe { sys::napi_ref_threadsafe_function(env.raw(), l.queue.settle.raw()) };
    }
    l.in_flight.set(l.in_flight.get() + 1);
    let queue = l.queue.clone();
    let deferred = Deferred(deferred);
    let mut job: BoxFuture<'static, ()> = Box::pin(async move {
        let out = match AssertUnwindSafe(fut).catch_unwind().await {
            Ok(out) => out,
            Err(_) => Err(napi::Error::from_reason("the call panicked (a bug in mcpcore)")),
        };
        let outcome: Outcome = Box::new(move |env| out.and_then(|v| unsafe { T::to_napi_value(env, v) }));
        queue.push(deferred, outcome);
    });
    let (parked, first) = on_js_thread(env, || {
        let parked = Arc::new(Parked { state: Mutex::new(State::First { woken: false }), runtime });
        let waker = Waker::from(parked.clone());
        let first = std::panic::catch_unwind(AssertUnwindSafe(|| {
            job.as_mut().poll(&mut Context::from_waker(&waker))
        }));
        (parked, first)
    });
    park_or_spawn(&parked, job, first);
    Ok(PromiseRaw::new(env.raw(), promise))
}

/// [`start_here`] for a call with callbacks of its own: polled once here, the rest spawned on
/// the runtime by napi-rs, whose deferred settles the Promise.
fn start_then_spawn<'env, T, F>(env: &'env Env, fut: F) -> napi::Result<PromiseRaw<'env, T>>
where
    T: ToNapiValue + Send + 'static,
    F: Future<Output = napi::Result<T>> + Send + 'static,
{
    let mut fut: BoxFuture<'static, napi::Result<T>> = Box::pin(fut);
    // The waker does nothing: the runtime polls the rest at once, so a wake-up is not lost.
    let mut cx = Context::from_waker(Waker::noop());
    let first =
        on_js_thread(env, || std::panic::catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx))));
    match first {
        Ok(Poll::Ready(out)) => env.spawn_future(std::future::ready(out)),
        Ok(Poll::Pending) => env.spawn_future(fut),
        Err(_) => Err(napi::Error::from_reason("the call panicked as it started (a bug in mcpcore)")),
    }
}
