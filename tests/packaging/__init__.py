"""The wheel and the source distribution, and installs from them."""
