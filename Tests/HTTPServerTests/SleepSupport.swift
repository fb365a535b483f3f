import HTTPTestSupport
import Glibc

func timespecFor(milliseconds: Int) -> timespec {
    timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
}

func nanosleepWrapper(_ remaining: inout timespec) -> Int32 {
    var request = remaining
    return nanosleep(&request, &remaining)
}
