"""Running an evaluation: options, the run plan, the runner, shards, the spending scope, the estimate."""
