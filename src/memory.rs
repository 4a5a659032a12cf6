//! The allocator: the system's for a run's small documents, mimalloc with
//! huge pages once a large one is on its way.
//!
//! A 2 MB review parses into some 100,000 small allocations. With glibc's
//! malloc a third of `validate` went to the first touch of each fresh 4 KiB
//! page (6,000 page faults); mimalloc asks the kernel for transparent huge
//! pages (2 MiB) for its arenas, which makes that about a hundred. But the
//! first touch of a huge page zeroes all of it, and mimalloc's arena is set up
//! on its first allocation: for a small run that is half a millisecond and
//! 6 MiB more for nothing. So blocks come from the system allocator until
//! [`huge_pages`] is called (a review of [`LARGE`] bytes or more is about to be
//! read), and from mimalloc after it. A block is freed or grown by the
//! allocator that gave it: mimalloc knows its own (`mi_is_in_heap_region`).
//! `bench/validate.py` and `bench/record_verify.py` measure both sides.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

use libmimalloc_sys as mi;

#[global_allocator]
static ALLOCATOR: Switching = Switching;

/// Set once, never cleared: new blocks come from mimalloc.
static HUGE: AtomicBool = AtomicBool::new(false);

/// Documents at least this large turn mimalloc on.
pub(crate) const LARGE: u64 = 1 << 20;

/// New blocks from mimalloc from here on: the run is about to hold a large
/// document.
pub(crate) fn huge_pages() {
    HUGE.store(true, Ordering::Relaxed);
}

struct Switching;

/// Whether `ptr` came from mimalloc. Before the switch none did.
fn from_mimalloc(ptr: *mut u8) -> bool {
    // SAFETY: mimalloc looks the address up in its own map; any address may be asked.
    HUGE.load(Ordering::Relaxed) && unsafe { mi::mi_is_in_heap_region(ptr as *const c_void) }
}

// SAFETY: each block is freed and grown by the allocator that gave it, and
// both honour the layout's size and alignment.
unsafe impl GlobalAlloc for Switching {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if HUGE.load(Ordering::Relaxed) {
            // SAFETY: a size and alignment from a valid layout.
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 }
        } else {
            // SAFETY: the caller's layout, passed on.
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if HUGE.load(Ordering::Relaxed) {
            // SAFETY: as in `alloc`.
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 }
        } else {
            // SAFETY: as in `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if from_mimalloc(ptr) {
            // SAFETY: a block mimalloc gave.
            unsafe { mi::mi_free(ptr as *mut c_void) }
        } else {
            // SAFETY: a block the system allocator gave, with its layout.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if from_mimalloc(ptr) {
            // SAFETY: a block mimalloc gave, grown by it.
            unsafe {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        } else {
            // SAFETY: a block the system allocator gave, grown by it.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn blocks_from_before_the_switch_are_freed_and_grown_after_it() {
        // Other tests in this process may have switched already; either way
        // both kinds of block live side by side here.
        let mut before: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 100 + i * 37]).collect();
        super::huge_pages();
        let after: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 100 + i * 41]).collect();
        for (i, v) in before.iter_mut().enumerate() {
            v.extend_from_slice(&[7; 5000]);
            assert_eq!(v[0], i as u8);
            assert_eq!(v.len(), 100 + i * 37 + 5000);
        }
        let big = vec![1u8; 3 << 20];
        assert!(
            after
                .iter()
                .enumerate()
                .all(|(i, v)| v.iter().all(|b| *b == i as u8))
        );
        drop((before, after, big));
    }
}
