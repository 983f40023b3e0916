from codetrial.entry import main

main()
