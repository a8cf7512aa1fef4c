"""Times nodeplan.schedule on a serialized ScheduleRequest (the 5,000-pod
Karpenter benchmark workload that build/release/benchmarks/capi_workload
writes): serialize + call + parse, as a Python caller sees it.

    capi_workload 5000 /tmp/w.bin
    PYTHONPATH=build/release/proto/py:bindings/python \
    NODEPLAN_LIBRARY=build/release/capi/libnodeplan.so \
        python bindings/python/benchmarks/bench_schedule.py /tmp/w.bin
"""

import statistics
import sys
import time

import nodeplan
from nodeplan.v1 import schedule_pb2


def timed(fn, rounds):
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main(path, rounds=5):
    request = schedule_pb2.ScheduleRequest.FromString(open(path, "rb").read())
    plan = nodeplan.schedule(request)  # Warm up; checks it works.
    call = timed(lambda: nodeplan.schedule(request), rounds)
    serialize = timed(request.SerializeToString, rounds)
    response_bytes = plan.SerializeToString()
    parse = timed(lambda: schedule_pb2.ScheduleResponse.FromString(
        response_bytes), rounds)
    print(f"pods={len(request.pods)} claims={len(plan.new_node_claims)} "
          f"request={request.ByteSize()}B response={len(response_bytes)}B")
    print(f"nodeplan.schedule (serialize+call+parse): {call * 1e3:.1f} ms "
          f"(median of {rounds})")
    print(f"  of which Python serialize {serialize * 1e3:.2f} ms, "
          f"parse {parse * 1e3:.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
