"""The rules core of the Fuji Koro companion: the data pack, gear, combat and the game session.

Pure and typed: no I/O beyond reading the shipped data pack, no UI, camera, serial or GPIO.
"""
