"""Speed of generated code against reference implementations (compilers, libraries, baselines)."""
