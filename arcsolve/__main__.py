from arcsolve.cli import app

app(prog_name="arcsolve")
