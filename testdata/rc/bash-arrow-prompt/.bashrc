# A prompt that ends in an arrow, not $ or #.
PS1='\[\e[35m\]\W\[\e[0m\] → '
