"""The engines' state handling: copies, pickles, ``get_state``/``set_state`` and ``load`` checks."""
