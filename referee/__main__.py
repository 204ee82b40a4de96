from referee.cli import main

main()
