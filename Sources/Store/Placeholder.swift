// Store module: see README architecture.
