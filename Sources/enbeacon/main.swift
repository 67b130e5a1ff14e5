import ENCore
print("enbeacon")
