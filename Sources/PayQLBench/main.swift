print("payql-bench: benchmarks arrive with their targets")
