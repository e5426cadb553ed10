// a mapping was meant to be here
