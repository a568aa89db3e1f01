"""5 Alive: config, state, reference engine, observation encoder, renderer and PettingZoo env."""
