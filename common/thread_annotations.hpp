// Clang's thread-safety attributes, spelled once: which mutex guards a member
// (LU_GUARDED_BY), which a function needs held (LU_REQUIRES) or must not hold
// (LU_EXCLUDES). Clang's -Wthread-safety proves them at compile time (the
// clang build of scripts/test.sh); under GCC they expand to nothing. How to
// annotate: docs/threading.md.
#pragma once

#if defined(__clang__)
#define LU_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define LU_THREAD_ANNOTATION(x)
#endif

#define LU_CAPABILITY(name) LU_THREAD_ANNOTATION(capability(name))
#define LU_SCOPED_CAPABILITY LU_THREAD_ANNOTATION(scoped_lockable)
#define LU_GUARDED_BY(mutex) LU_THREAD_ANNOTATION(guarded_by(mutex))
#define LU_PT_GUARDED_BY(mutex) LU_THREAD_ANNOTATION(pt_guarded_by(mutex))
#define LU_REQUIRES(...) LU_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define LU_REQUIRES_SHARED(...) LU_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define LU_EXCLUDES(...) LU_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define LU_ACQUIRE(...) LU_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define LU_RELEASE(...) LU_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define LU_ACQUIRE_SHARED(...) LU_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define LU_RELEASE_SHARED(...) LU_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define LU_TRY_ACQUIRE(...) LU_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define LU_RETURN_CAPABILITY(x) LU_THREAD_ANNOTATION(lock_returned(x))
#define LU_ACQUIRED_BEFORE(...) LU_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define LU_ACQUIRED_AFTER(...) LU_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
