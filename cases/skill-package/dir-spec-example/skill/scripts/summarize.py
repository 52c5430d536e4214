print('summary of the evidence')
