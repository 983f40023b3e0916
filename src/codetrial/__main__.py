from codetrial.cli import main

main()
