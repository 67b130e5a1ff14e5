// Agent module: see README architecture.
