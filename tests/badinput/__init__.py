"""The generated bad-input suite: one generator module per surface, one shared harness."""
