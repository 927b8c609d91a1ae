"""`vault-agent`: a thin command-line shell over the library (`main.py` lists the commands)."""
