from pinax.cli import main

main()
