// HCI module: see README architecture.
