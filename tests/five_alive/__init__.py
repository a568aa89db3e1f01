"""5 Alive: rule scenarios, the env's own behaviour, batched and JAX engines against the reference."""
