"""The environments as users call them: the vector API, the input forms they accept, misuse and its errors."""
