"""What ``fiveplay_env.core`` shares between the games: seeding (numpy and JAX) and observation layouts."""
