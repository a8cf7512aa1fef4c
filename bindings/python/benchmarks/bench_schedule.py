"""Times nodeplan.schedule on a serialized ScheduleRequest (the 5,000-pod
Karpenter benchmark workload that build/release/benchmarks/capi_workload
writes): serialize + call + parse, as a Python caller sees it, with the
response's instance types as names (the default) and Indexed (with and
without nodeplan.expand_instance_types). Reports wall time (which on a
shared machine mostly measures the load) and CPU time (the process's, all
threads), the figure to compare with capi_bench's CPU column and the Go
benchmark's cpu-ms/op.

    capi_workload 5000 /tmp/w.bin
    PYTHONPATH=build/release/proto/py:bindings/python \\
    NODEPLAN_LIBRARY=build/release/capi/libnodeplan.so \\
        python bindings/python/benchmarks/bench_schedule.py /tmp/w.bin
"""

import statistics
import sys
import time

import nodeplan
from nodeplan.v1 import schedule_pb2


def timed(fn, rounds):
    """Median wall and CPU seconds of fn() over rounds calls."""
    wall, cpu = [], []
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(wall), statistics.median(cpu)


def ms(seconds):
    return f"{seconds * 1e3:.1f} ms"


def report(encoding, request, rounds):
    """Times one encoding: the call, and the Python protobuf work in it."""
    plan = nodeplan.schedule(request)  # Warm up; checks it works.
    call = timed(lambda: nodeplan.schedule(request), rounds)
    serialize = timed(request.SerializeToString, rounds)
    response_bytes = plan.SerializeToString()
    parse = timed(lambda: schedule_pb2.ScheduleResponse.FromString(
        response_bytes), rounds)
    print(f"{encoding}: claims={len(plan.new_node_claims)} "
          f"request={request.ByteSize()}B response={len(response_bytes)}B")
    print(f"  nodeplan.schedule (serialize+call+parse): {ms(call[0])} wall, "
          f"{ms(call[1])} CPU (median of {rounds})")
    print(f"    of which Python serialize {serialize[1] * 1e3:.2f} ms CPU, "
          f"parse {parse[1] * 1e3:.2f} ms CPU")
    if encoding == "Indexed":
        expanded = timed(lambda: nodeplan.expand_instance_types(
            nodeplan.schedule(request)), rounds)
        names = timed(lambda: nodeplan.instance_types(plan), rounds)
        print(f"  schedule + expand_instance_types: {ms(expanded[0])} wall, "
              f"{ms(expanded[1])} CPU")
        print(f"  instance_types(plan), every claim's names: "
              f"{ms(names[1])} CPU")


def main(path, rounds=5):
    request = schedule_pb2.ScheduleRequest.FromString(open(path, "rb").read())
    print(f"pods={len(request.pods)}")
    report("Names", request, rounds)
    indexed = schedule_pb2.ScheduleRequest()
    indexed.CopyFrom(request)
    indexed.options.instance_type_encoding = "Indexed"
    report("Indexed", indexed, rounds)


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
