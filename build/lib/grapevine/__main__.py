from grapevine.cli import app

app()
