"""The command line (``python -m paramscope``): argparse front end importing only what each command needs."""
